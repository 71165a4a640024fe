// The coverage-first initial design (initial_design.hpp).
#include "beast/search/initial_design.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "beast/search/permutation.hpp"

namespace beast {
namespace {

constexpr size_t kPool = 512;  // enough to hold every value of a typical parameter

}  // namespace

std::vector<Config> InitialDesign(const SearchSpace& space, uint64_t seed, size_t count) {
  const RandomPermutation order(space.Size(), SplitMix64(seed ^ 0x1d1a1));
  std::vector<Config> pool;
  for (uint64_t i = 0; i < space.Size() && i < kPool; ++i) pool.push_back(space.At(order(i)));
  std::unordered_set<std::string> seen;  // "parameter=value" already in the design
  auto items = [](const Config& c) {
    std::vector<std::string> out;
    for (size_t p = 0; p < c.size(); ++p)
      out.push_back(c.names()[p] + "=" + c.values()[p].ToString());
    return out;
  };
  auto news = [&](const Config& c) {
    size_t n = 0;
    for (const std::string& item : items(c)) n += seen.count(item) ? 0 : 1;
    return n;
  };
  std::vector<Config> design;
  std::vector<bool> used(pool.size(), false);
  while (design.size() < count && design.size() < pool.size()) {
    size_t best = 0, best_news = 0;
    bool any = false;
    for (size_t i = 0; i < pool.size(); ++i) {
      if (used[i]) continue;
      const size_t n = news(pool[i]);
      if (!any || n > best_news) {
        best = i;
        best_news = n;
        any = true;
      }
    }
    used[best] = true;
    for (const std::string& item : items(pool[best])) seen.insert(item);
    design.push_back(pool[best]);
  }
  return design;
}

}  // namespace beast
