// Config selection for a run (config_selection.hpp).
#include "config_selection.hpp"

#include <algorithm>
#include <random>
#include <set>

namespace beast {

std::vector<Config> SelectConfigs(const BoundSpace& space, const Config* default_config,
                                  uint64_t max_configs, uint64_t seed) {
  std::vector<Config> out;
  if (default_config) out.push_back(*default_config);
  const std::string default_key = default_config ? default_config->Key() : "";
  // First pass: the size of the valid space and where the default sits in it,
  // so the sample is drawn from the other configs only.
  uint64_t count = 0, default_index = UINT64_MAX;
  space.ForEach([&](const Config& c) {
    if (default_config && default_index == UINT64_MAX && c.Key() == default_key) default_index = count;
    ++count;
    return true;
  });
  uint64_t others = count - (default_index != UINT64_MAX ? 1 : 0);
  bool everything = max_configs == 0 || others + out.size() <= max_configs;
  std::set<uint64_t> chosen;
  if (!everything) {
    // Floyd's algorithm: k distinct indices among the others, uniform.
    std::mt19937_64 rng(seed);
    uint64_t k = std::min<uint64_t>(max_configs - out.size(), others);
    for (uint64_t j = others - k; j < others; ++j) {
      uint64_t t = std::uniform_int_distribution<uint64_t>(0, j)(rng);
      if (!chosen.insert(t).second) chosen.insert(j);
    }
    std::set<uint64_t> shifted;  // indices among the others -> indices in the space
    for (uint64_t i : chosen) shifted.insert(i >= default_index ? i + 1 : i);
    chosen.swap(shifted);
  }
  uint64_t index = 0;
  auto next = chosen.begin();
  space.ForEach([&](const Config& c) {
    bool take = everything ? index != default_index : (next != chosen.end() && *next == index);
    if (!everything && take) ++next;
    ++index;
    if (take) out.push_back(c);
    return everything || next != chosen.end();
  });
  return out;
}

}  // namespace beast
