// Measuring one config of a live run: its program comes from the program
// supply (rendered now, or built ahead by the compile pool), the device
// worker builds or loads, validates and times it under a time limit that
// tightens once the problem has a best time, and post-compile constraints
// are checked on the built kernel before it runs. What it cost goes into the
// run's summary. Used by the run on one device and by each device rank of a
// run under mpirun.
#pragma once

#include <atomic>
#include <optional>

#include "beast/compile/program_supply.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/worker_client.hpp"
#include "harness/measure/timing.hpp"

namespace beast {

struct SuppliedMeasure {
  ProgramSupply& supply;
  WorkerClient& worker;
  harness::BenchmarkPlan plan;
  double timeout_seconds;  // per config, build included
  TuneSummary& summary;    // what measuring costs is added here
};

// The outcome of `config` of `pair`; `best_ms`: the problem's best ok median
// on the device so far (any template), which tightens the time limit and
// stops clear losers early. nullopt when `stop` turned true first (the
// config stays unmeasured).
std::optional<Outcome> MeasureConfig(const SuppliedMeasure& context, const PlannedPair& pair,
                                     const Config& config, std::optional<double> best_ms,
                                     const std::atomic<bool>& stop);

}  // namespace beast
