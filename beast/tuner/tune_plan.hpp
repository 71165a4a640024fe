// The plan of a tuning run: every (template, problem) pair it tunes, with the
// space bound to the problem and the device, the template's default config
// and the configs the run selects (the default first, then the whole space
// or a seeded uniform sample of it). The measuring tuner and the compile-only
// one plan alike, so both select the same configs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "beast/tuner/tuner.hpp"

namespace beast {

struct PlannedPair {
  const SpaceSpec* spec = nullptr;
  const Problem* problem = nullptr;
  std::unique_ptr<BoundSpace> space;
  Config default_config;
  bool has_default = false;  // the default config is correct for this problem
  std::string no_default_why;
  uint64_t count = 0;
  std::vector<Config> configs;  // what this run measures, the default first
  // Post-compile constraints the device's backend can apply are in force.
  bool post_compile = false;
};

// Everything that can be wrong with the input is found here, before the
// database is touched: a template that fits none of the problems, an empty
// space (named with the constraint that emptied it).
std::vector<PlannedPair> PlanPairs(const std::vector<SpaceSpec>& specs, const TuneOptions& options,
                                   const DeviceInfo& device);

// The pairs' bound spaces, in order.
std::vector<const BoundSpace*> SpacesOf(const std::vector<PlannedPair>& pairs);

}  // namespace beast
