// The loop every tuning run shares, live on a device or compile-only: for
// each (template, problem) pair, follow its trajectory (pair_trajectory.hpp:
// the strategy's proposals, what the database holds taken from there), have
// the run's measurer turn each config to measure into an Outcome, record
// every outcome in its own transaction with the strategy that chose it,
// count it in the summary and the progress line, and let the measurer end
// the pair (confirm its winner, or range its registers). The two kinds of
// run differ only in the measurer they use.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "beast/tuner/progress.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/instance_measure.hpp"
#include "results_db/store.hpp"

namespace beast {

// A pair's rows in the database.
struct PairIds {
  int64_t problem = 0;
  int64_t template_version = 0;
};

// What turns configs into outcomes: the device worker (live), or NVRTC on
// every core (compile-only).
class ConfigMeasurer {
 public:
  virtual ~ConfigMeasurer() = default;

  // What a config that works ends as: ok, or compiled.
  virtual Status Success() const = 0;
  // A pair starts; the best time its template version has on the device so
  // far (ms < 0: none), for the progress line.
  virtual void BeginPair(const PlannedPair& pair, const PairIds& ids, double* best_ms,
                         double* best_gflops) = 0;
  // The configs the loop will ask for next, in order (the first is asked for
  // now): what a compile pool may build ahead.
  virtual void Upcoming(const PlannedPair& pair, const std::vector<Config>& configs) = 0;
  // Measures `config`, adding what it cost to the run's summary; nullopt
  // when `stop` turned true first (the config stays unmeasured).
  virtual std::optional<Outcome> Measure(const PlannedPair& pair, const Config& config,
                                         const std::atomic<bool>& stop) = 0;
  // The pair is measured: what its summary says beyond the counts.
  virtual void EndPair(const PlannedPair& pair, const PairIds& ids, const std::atomic<bool>& stop,
                       PairSummary* summary) = 0;
};

// What the loop writes into, fixed for the run.
struct TuneLoopContext {
  results_db::Store& store;
  Progress& progress;
  int64_t device_id;
  int64_t run_id;
  // The compiler every measurement records (device.compiler, or NVRTC's).
  std::string compiler, compiler_version;
  const TuneOptions& options;  // the search's: seed, patience, transfer, shard
  // The run's end when it has a time budget (Clock::time_point::max(): none).
  std::chrono::steady_clock::time_point deadline;
  // How many configs past the next the measurer is told of (Upcoming).
  size_t lookahead = 8;
  // The search proposes its next batch when this many proposed configs are
  // left unmeasured (SearchDriver::Options::lead).
  size_t search_lead = 2;
  double proposal_seconds = 0;  // the strategies' cost, summed over the pairs
};

// Records the outcome of `config` with its config row, in one transaction: a
// killed run loses nothing recorded. `chosen_by`: the strategy's name, or
// "default".
void RecordOutcome(TuneLoopContext& context, const PlannedPair& pair, const PairIds& ids,
                   const Config& config, const Outcome& outcome, const std::string& chosen_by);

// Counts one outcome measured now in the pair's summary and the progress
// (`success`: the status of a config that works, ok or compiled).
void CountOutcome(TuneLoopContext& context, Status success, const Outcome& outcome,
                  PairSummary* summary);

// Tunes every pair in order until `stop` turns true; the pairs' summaries.
std::vector<PairSummary> TunePairs(TuneLoopContext& context, const std::vector<PlannedPair>& pairs,
                                   ConfigMeasurer& measurer, const std::atomic<bool>& stop);

// The progress line's total: every pair's budget.
uint64_t SelectedConfigs(const std::vector<PlannedPair>& pairs);

}  // namespace beast
