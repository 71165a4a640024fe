// Which configs a run measures: the template's default first, then the whole
// valid space, or a uniform sample of it (seeded, reproducible) when it is
// larger than the budget. The sample is drawn by index in one lazy pass, so
// the valid set is never held in memory.
#pragma once

#include <cstdint>
#include <vector>

#include "beast/space/bound_space.hpp"

namespace beast {

// max_configs 0 means no limit. The default config (if any) comes first and
// counts toward the budget.
std::vector<Config> SelectConfigs(const BoundSpace& space, const Config* default_config,
                                  uint64_t max_configs, uint64_t seed);

}  // namespace beast
