// ProblemShelf: the problems a worker keeps ready, by key — the most
// recently used ones, within a count and a size, not every one it has seen.
// A problem's inputs, reference and device buffers are made once and serve
// every config of it (making them again costs a reference computation); a
// batch job of many problems would otherwise hold them all for the worker's
// life, until the machine ran out of memory and its configs looked crashed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <utility>

namespace beast {

template <typename Entry>
class ProblemShelf {
 public:
  using Size = std::function<size_t(const Entry&)>;

  // At most `max_entries` entries and, beyond the newest, `max_bytes` by
  // `size` (none: entries count only).
  explicit ProblemShelf(size_t max_entries, size_t max_bytes = SIZE_MAX, Size size = nullptr)
      : max_entries_(max_entries < 1 ? 1 : max_entries),
        max_bytes_(max_bytes),
        size_(std::move(size)) {}

  // The entry of `key`, made by `make` when it is not kept. The least
  // recently used go: before making it, as many as the count needs (so that
  // a new one does not need the memory of all); after, as many as the size
  // needs (its size is known once it is made). The reference stays good
  // until the next Get, Drop or Clear.
  Entry& Get(const std::string& key, const std::function<std::unique_ptr<Entry>()>& make) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->key != key) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return *entries_.front().entry;
    }
    while (entries_.size() >= max_entries_) PopOldest();
    std::unique_ptr<Entry> fresh = make();  // may throw: nothing is kept then
    const size_t bytes = size_ ? size_(*fresh) : 0;
    entries_.push_front({key, std::move(fresh), bytes});
    bytes_ += bytes;
    while (entries_.size() > 1 && bytes_ > max_bytes_) PopOldest();
    return *entries_.front().entry;
  }

  // Lets go of `key`'s entry (it is made afresh on its next Get).
  void Drop(const std::string& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->key != key) continue;
      bytes_ -= it->bytes;
      entries_.erase(it);
      return;
    }
  }
  void Clear() {
    entries_.clear();
    bytes_ = 0;
  }

  size_t size() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  struct Kept {
    std::string key;
    std::unique_ptr<Entry> entry;
    size_t bytes;
  };
  void PopOldest() {
    bytes_ -= entries_.back().bytes;
    entries_.pop_back();
  }

  size_t max_entries_, max_bytes_;
  Size size_;
  size_t bytes_ = 0;
  std::list<Kept> entries_;  // most recent first
};

}  // namespace beast
