// Offline replay: a strategy run against a recorded space, with no device —
// each config it proposes "measures" as it was recorded — through the same
// trajectory driver as a tuning run, so a strategy is judged in seconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "beast/search/recorded_space.hpp"
#include "beast/search/search_space.hpp"

namespace beast {

struct ReplayRun {
  uint64_t seed = 0;
  double best_ms = 0;      // 0 when no config succeeded
  double fraction = 0;     // optimum_ms / best_ms; 0 when none succeeded
  size_t evaluations = 0;  // distinct configs measured, failures included
};

struct ReplayResult {
  std::string strategy;
  size_t budget = 0;
  double optimum_ms = 0;
  std::vector<ReplayRun> runs;
  double mean_fraction = 0, median_fraction = 0;
  double seconds = 0;  // wall clock of the runs: the strategy's own cost
};

// Runs `strategy` `repeats` times (seeds seed..seed+repeats-1) on `space`,
// each to `budget` configs, the next batch proposed when `lead` proposed
// configs are left unmeasured (SearchDriver::Options::lead: a tuning run on a
// GPU keeps one per compile worker). Every point of `space` must be recorded
// in `recorded`; throws Error(kBadInput) naming the first that is not.
ReplayResult Replay(const RecordedSpace& recorded, const SearchSpace& space,
                    const std::string& strategy, size_t budget, uint64_t seed, size_t repeats,
                    size_t lead = 2);

}  // namespace beast
