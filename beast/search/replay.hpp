// Offline replay: a strategy run against a recorded space, with no device —
// each config it proposes "measures" as it was recorded — through the same
// trajectory driver as a tuning run, so a strategy is judged in seconds: by
// the configs it needs, and (from the recorded compile and benchmark times)
// by the wall clock a GPU run would need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "beast/search/recorded_space.hpp"
#include "beast/search/search_space.hpp"
#include "beast/search/strategy.hpp"

namespace beast {

struct ReplayRun {
  uint64_t seed = 0;
  double best_ms = 0;      // 0 when no config succeeded
  double fraction = 0;     // optimum_ms / best_ms; 0 when none succeeded
  size_t evaluations = 0;  // distinct configs measured, failures included
  // With a simulated pipeline (ReplaySettings::workers): per time of
  // ReplaySettings::at_seconds, the fraction reached and the configs measured
  // by then.
  std::vector<double> fraction_at;
  std::vector<size_t> evaluations_at;
};

struct ReplayResult {
  std::string strategy;
  size_t budget = 0;
  double optimum_ms = 0;
  std::vector<ReplayRun> runs;
  double mean_fraction = 0, median_fraction = 0;
  std::vector<double> mean_fraction_at, mean_evaluations_at;  // per at_seconds
  double seconds = 0;  // wall clock of the runs: the strategy's own cost
};

struct ReplaySettings {
  size_t budget = 100;
  uint64_t seed = 0;  // the runs' seeds are seed..seed+repeats-1
  size_t repeats = 20;
  // The next batch is proposed when `lead` proposed configs are left
  // unmeasured (SearchDriver::Options::lead).
  size_t lead = 2;
  // > 0: the run's wall clock is simulated (PipelineClock) with this many
  // compile workers and the recorded costs, and the fraction reached is
  // reported at each of `at_seconds` as well.
  int workers = 0;
  std::vector<double> at_seconds;
  // Trials of other recorded spaces (the same kernel on other devices or
  // problems) that a strategy which learns from transfer starts from, as a
  // tuning run starts from the database's (beast tune --transfer auto).
  const TransferSet* transfer = nullptr;
  // SpaceOptimumMs(recorded, space) when the caller has it already (it
  // walks the whole space); 0: Replay works it out.
  double optimum_ms = 0;
};

// The fastest recorded time of a point of `space` (a T1 file's space may be
// a part of the cache's): the optimum a replay of it is judged against.
// Throws Error(kBadInput) naming the source when a point of `space` is not
// recorded (with how many are not), or when no point of it ran ok.
double SpaceOptimumMs(const RecordedSpace& recorded, const SearchSpace& space);

// Runs `strategy` settings.repeats times on `space`, each to settings.budget
// configs, against SpaceOptimumMs (whose errors it throws); also throws
// Error(kBadInput) naming the source when `workers` is set and it records
// no costs.
ReplayResult Replay(const RecordedSpace& recorded, const SearchSpace& space,
                    const std::string& strategy, const ReplaySettings& settings);

}  // namespace beast
