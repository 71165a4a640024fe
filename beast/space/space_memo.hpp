// MemoTable: remembered subtree counts of a walk plan node, keyed by the
// values of the slots the subtree reads from above (its context). Open
// addressing over one flat array of words, so a lookup allocates nothing;
// the table stops taking entries at a fixed size rather than grow without
// bound (a miss is only recomputed).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "beast/core/value.hpp"

namespace beast::space {

class MemoTable {
 public:
  // key_words: words of a key; value_words: words stored per entry.
  MemoTable(int key_words, int value_words, size_t max_entries)
      : key_words_(key_words), value_words_(value_words), max_entries_(max_entries) {
    Rehash(16);
  }

  // The key of a context: each slot's payload, then one word of kinds.
  static void MakeKey(const std::vector<int>& context, const Value* slots, uint64_t* key) {
    uint64_t kinds = 0;
    for (size_t k = 0; k < context.size(); ++k) {
      const Value& v = slots[context[k]];
      std::memcpy(&key[k], &v.i, sizeof(uint64_t));
      kinds |= static_cast<uint64_t>(v.kind) << (2 * k);
    }
    key[context.size()] = kinds;
  }

  // The stored words under key, or nullptr.
  const uint64_t* Find(const uint64_t* key) const {
    uint64_t h = Hash(key);
    for (size_t b = h & mask_;; b = (b + 1) & mask_) {
      const uint64_t* bucket = &data_[b * stride_];
      if (bucket[0] == 0) return nullptr;
      if (bucket[0] == h && std::memcmp(bucket + 1, key, key_words_ * sizeof(uint64_t)) == 0) {
        return bucket + 1 + key_words_;
      }
    }
  }

  // Room for the words of a new entry under key (not present), or nullptr
  // when the table is full.
  uint64_t* Insert(const uint64_t* key) {
    if (size_ >= max_entries_) return nullptr;
    if (2 * (size_ + 1) > buckets_) Rehash(buckets_ * 2);
    uint64_t h = Hash(key);
    size_t b = h & mask_;
    while (data_[b * stride_] != 0) b = (b + 1) & mask_;
    uint64_t* bucket = &data_[b * stride_];
    bucket[0] = h;
    std::memcpy(bucket + 1, key, key_words_ * sizeof(uint64_t));
    ++size_;
    return bucket + 1 + key_words_;
  }

  size_t size() const { return size_; }

 private:
  uint64_t Hash(const uint64_t* key) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < key_words_; ++k) {
      h ^= key[k] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    }
    return h | 1;  // 0 marks an empty bucket
  }

  void Rehash(size_t buckets) {
    std::vector<uint64_t> old = std::move(data_);
    size_t old_buckets = buckets_;
    buckets_ = buckets;
    mask_ = buckets - 1;
    stride_ = 1 + key_words_ + value_words_;
    data_.assign(buckets_ * stride_, 0);
    for (size_t b = 0; b < old_buckets; ++b) {
      const uint64_t* bucket = &old[b * stride_];
      if (bucket[0] == 0) continue;
      size_t nb = bucket[0] & mask_;
      while (data_[nb * stride_] != 0) nb = (nb + 1) & mask_;
      std::memcpy(&data_[nb * stride_], bucket, stride_ * sizeof(uint64_t));
    }
  }

  int key_words_;
  int value_words_;
  size_t max_entries_;
  size_t size_ = 0;
  size_t buckets_ = 0;
  size_t mask_ = 0;
  size_t stride_ = 0;
  std::vector<uint64_t> data_;
};

}  // namespace beast::space
