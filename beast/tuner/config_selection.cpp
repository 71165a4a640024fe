// Config selection for a run (config_selection.hpp).
#include "config_selection.hpp"

#include <algorithm>
#include <random>
#include <set>

namespace beast {

std::vector<Config> SelectConfigs(const BoundSpace& space, const Config& default_config,
                                  uint64_t max_configs, uint64_t seed) {
  std::vector<Config> out = {default_config};
  const std::string default_key = default_config.Key();
  uint64_t count = space.Count();
  bool everything = max_configs == 0 || count + 1 <= max_configs;
  std::set<uint64_t> chosen;
  if (!everything) {
    // Floyd's algorithm: k distinct indices, uniform, in O(k) draws.
    std::mt19937_64 rng(seed);
    uint64_t k = std::min<uint64_t>(max_configs > 0 ? max_configs - 1 : 0, count);
    for (uint64_t j = count - k; j < count; ++j) {
      uint64_t t = std::uniform_int_distribution<uint64_t>(0, j)(rng);
      if (!chosen.insert(t).second) chosen.insert(j);
    }
  }
  uint64_t index = 0;
  auto next = chosen.begin();
  space.ForEach([&](const Config& c) {
    bool take = everything || (next != chosen.end() && *next == index);
    if (!everything && take) ++next;
    ++index;
    if (take && c.Key() != default_key) out.push_back(c);
    return everything || next != chosen.end();
  });
  return out;
}

}  // namespace beast
