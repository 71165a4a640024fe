// ProblemShelf: the problems a worker keeps ready, by key — the most
// recently used few, not every one it has seen. A problem's inputs,
// reference and device buffers are made once and serve every config of it;
// a batch job of many problems would otherwise hold them all for the
// worker's life (tens of MB each, in every compile worker too), until the
// machine runs out of memory and its configs look crashed.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <list>
#include <memory>
#include <string>
#include <utility>

namespace beast {

template <typename Entry>
class ProblemShelf {
 public:
  // Two: the problem being tuned, and the one before it (a job's final
  // confirmations go back to each problem once).
  explicit ProblemShelf(size_t capacity = 2) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The entry of `key`, made by `make` when it is not kept. The least
  // recently used are let go first, so that a new one does not need the
  // memory of all; the reference stays good until the next Get or Drop.
  Entry& Get(const std::string& key, const std::function<std::unique_ptr<Entry>()>& make) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != key) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return *entries_.front().second;
    }
    while (entries_.size() >= capacity_) entries_.pop_back();
    std::unique_ptr<Entry> fresh = make();  // may throw: nothing is kept then
    entries_.emplace_front(key, std::move(fresh));
    return *entries_.front().second;
  }

  // Lets go of `key`'s entry (it is made afresh on its next Get).
  void Drop(const std::string& key) {
    entries_.remove_if([&](const auto& e) { return e.first == key; });
  }

  size_t size() const { return entries_.size(); }

 private:
  size_t capacity_;
  std::list<std::pair<std::string, std::unique_ptr<Entry>>> entries_;  // most recent first
};

}  // namespace beast
