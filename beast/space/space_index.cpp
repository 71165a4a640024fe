// Positions of configs without listing them (At, IndexOf, Sample). Along the
// plan's tree, the configs under a node come value by value, and for one
// value as the product of its independent groups, the first group most
// significant — exactly the order of the walk that lists them. Subtree counts
// are kept between calls (a Counter that remembers every node's counts by
// context, within a memory budget), so after the first call a position costs
// about one walk down the tree.
#include <algorithm>
#include <unordered_set>

#include "beast/space/bound_space.hpp"
#include "beast/space/bound_space_impl.hpp"
#include "beast/space/space_counter.hpp"

namespace beast {
namespace {

using space::Counter;
using space::Plan;
using space::PlanNode;

// SplitMix64, and a uniform draw in [0, n) by rejection: the same numbers
// from the same seed with every compiler and standard library.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) {
    uint64_t threshold = (0 - n) % n;  // 2^64 mod n: values below it would bias the result
    for (;;) {
      uint64_t x = Next();
      if (x >= threshold) return x % n;
    }
  }

 private:
  uint64_t state_;
};

struct NotInSpace {};

// Works on the space's kept counter; the caller holds Impl::index_mutex.
class Indexer {
 public:
  explicit Indexer(const BoundSpace::Impl& m) : m_(m), plan_(*m.plan) {
    if (!m.index_counter) {
      m.index_counter = std::make_unique<Counter>(m, plan_, space::MemoPolicy::kAll, nullptr);
    }
    counter_ = m.index_counter.get();
    empty_ = !counter_->Prepare(&slots_);
  }

  uint64_t Total() {
    if (empty_) return 0;
    uint64_t total = 1;
    for (int root : plan_.roots) {
      uint64_t c = counter_->Count(root, slots_.data());
      if (c == 0) return 0;
      total = space::CheckedProduct(total, c);
    }
    return total;
  }

  Config At(uint64_t index) {
    Split(plan_.roots, index);
    return m_.MakeConfig(slots_.data());
  }

  uint64_t IndexOf(const Config& config) {
    if (empty_) throw NotInSpace{};
    return IndexIn(plan_.roots, config);
  }

 private:
  // Splits index among independent groups (the first most significant) and
  // descends into each.
  void Split(const std::vector<int>& groups, uint64_t index) {
    std::vector<uint64_t> part(groups.size());
    for (size_t k = groups.size(); k-- > 0;) {
      uint64_t c = counter_->Count(groups[k], slots_.data());
      part[k] = index % c;
      index /= c;
    }
    for (size_t k = 0; k < groups.size(); ++k) Descend(groups[k], part[k]);
  }

  void Descend(int n, uint64_t index) {
    const std::vector<Value> values = counter_->Values(n, slots_.data());
    for (const Value& v : values) {
      if (!counter_->Bind(n, v, slots_.data())) continue;
      uint64_t c = counter_->Children(n, slots_.data());
      if (index < c) {
        Split(plan_.nodes[n].children, index);
        return;
      }
      index -= c;
    }
    BEAST_CHECK(false);  // index was below the subtree's count
  }

  uint64_t IndexIn(const std::vector<int>& groups, const Config& config) {
    uint64_t index = 0;
    for (int g : groups) {
      uint64_t within = IndexInNode(g, config);
      index = index * counter_->Count(g, slots_.data()) + within;
    }
    return index;
  }

  uint64_t IndexInNode(int n, const Config& config) {
    const PlanNode& node = plan_.nodes[n];
    const Value& target = config.values()[node.level];
    const std::vector<Value> values = counter_->Values(n, slots_.data());
    uint64_t offset = 0;
    for (const Value& v : values) {
      if (v.Equals(target)) {
        if (!counter_->Bind(n, v, slots_.data())) throw NotInSpace{};
        return offset + IndexIn(node.children, config);
      }
      if (counter_->Bind(n, v, slots_.data())) offset += counter_->Children(n, slots_.data());
    }
    throw NotInSpace{};
  }

  const BoundSpace::Impl& m_;
  const Plan& plan_;
  Counter* counter_ = nullptr;
  std::vector<Value> slots_;
  bool empty_ = false;
};

}  // namespace

uint64_t BoundSpace::IndexOf(const Config& config) const {
  const Impl& m = *impl_;
  bool names_match = config.size() == m.levels.size();
  for (size_t l = 0; names_match && l < m.levels.size(); ++l) {
    names_match = config.names()[l] == m.levels[l].param->name;
  }
  if (names_match) {
    std::lock_guard<std::mutex> lock(m.index_mutex);
    try {
      return Indexer(m).IndexOf(config);
    } catch (const NotInSpace&) {
    }
  }
  std::string why;
  if (Check(config, &why)) why = "it is not a point of the space";
  throw Error(ErrorCode::kNotFound,
              "config " + config.Key() + " is not in the space of " + m.spec.name + ": " + why);
}

Config BoundSpace::At(uint64_t index) const {
  const Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.index_mutex);
  Indexer indexer(m);
  uint64_t total = indexer.Total();
  if (index >= total) {
    throw Error(ErrorCode::kBadArgument, "index " + std::to_string(index) +
                                             " is past the end of the space of " + m.spec.name +
                                             " (" + std::to_string(total) + " configs)");
  }
  return indexer.At(index);
}

std::vector<Config> BoundSpace::Sample(uint64_t k, uint64_t seed) const {
  const Impl& m = *impl_;
  std::vector<uint64_t> chosen;
  {
    std::lock_guard<std::mutex> lock(m.index_mutex);
    Indexer indexer(m);
    uint64_t total = indexer.Total();
    if (k < total) {
      // Floyd's algorithm: k distinct indices, each k-subset equally likely.
      Random random(seed);
      std::unordered_set<uint64_t> set;
      for (uint64_t j = total - k; j < total; ++j) {
        uint64_t t = random.Below(j + 1);
        if (!set.insert(t).second) set.insert(j);
      }
      chosen.assign(set.begin(), set.end());
      std::sort(chosen.begin(), chosen.end());
      std::vector<Config> out;
      out.reserve(chosen.size());
      for (uint64_t index : chosen) out.push_back(indexer.At(index));
      return out;
    }
  }
  return Enumerate();
}

}  // namespace beast
