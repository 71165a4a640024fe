// Config selection for a run (config_selection.hpp).
#include "beast/search/config_selection.hpp"

#include <random>

#include "beast/core/error.hpp"

namespace beast {

std::vector<Config> SelectConfigs(const BoundSpace& space, const Config* default_config,
                                  uint64_t max_configs, uint64_t seed) {
  std::vector<Config> out;
  if (default_config) out.push_back(*default_config);
  const std::string default_key = default_config ? default_config->Key() : "";
  uint64_t count = space.Count();
  // Is the default itself a point of the space (soft constraints included)?
  bool default_in_space = false;
  if (default_config) {
    try {
      space.IndexOf(*default_config);
      default_in_space = true;
    } catch (const Error&) {
    }
  }
  uint64_t others = count - (default_in_space ? 1 : 0);
  if (max_configs == 0 || others + out.size() <= max_configs) {
    space.ForEach([&](const Config& c) {
      if (!default_in_space || c.Key() != default_key) out.push_back(c);
      return true;
    });
    return out;
  }
  // A uniform sample of the others: draw one more when the default could be
  // among those drawn; drop the default if drawn, else a uniformly chosen
  // one, so the rest stays uniform over the others.
  uint64_t want = max_configs - out.size();
  std::vector<Config> drawn = space.Sample(default_in_space ? want + 1 : want, seed);
  if (drawn.size() > want) {
    size_t drop = drawn.size();
    for (size_t i = 0; i < drawn.size(); ++i) {
      if (drawn[i].Key() == default_key) drop = i;
    }
    if (drop == drawn.size()) drop = std::mt19937_64(seed ^ 0x9e3779b97f4a7c15ULL)() % drawn.size();
    drawn.erase(drawn.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  out.insert(out.end(), drawn.begin(), drawn.end());
  return out;
}

}  // namespace beast
