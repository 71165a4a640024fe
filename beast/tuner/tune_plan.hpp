// The plan of a tuning run: every (template, problem) pair it tunes, with the
// space bound to the problem and the device, the template's default config,
// the budget of configs and the strategy that chooses them. The measuring
// tuner and the compile-only one plan alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "harness/measure/timing.hpp"

namespace beast {

struct PlannedPair {
  const SpaceSpec* spec = nullptr;
  const Problem* problem = nullptr;
  std::unique_ptr<BoundSpace> space;
  Config default_config;
  bool has_default = false;  // the default config is correct for this problem
  std::string no_default_why;
  uint64_t count = 0;
  // Configs to measure, the default included: at most count, or count + 1
  // when the default is not a point of the space.
  uint64_t budget = 0;
  std::string strategy;  // its name (strategy.hpp)
  // Post-compile constraints the device's backend can apply are in force.
  bool post_compile = false;
};

// Everything that can be wrong with the input is found here, before the
// database is touched: a template that fits none of the problems, an empty
// space (named with the constraints that emptied it), an unknown strategy.
// With `empty`, a pair whose space is empty is listed there ("TEMPLATE on
// PROBLEM: why") and left out, and only a run left with no pair at all is
// refused; without, the first empty space is refused. With `other_layout`,
// each conv2d pair left out because the template does not take the problem's
// layout is listed there ("TEMPLATE takes NCHW, not PROBLEM"). With
// options.templates_by_problem, a pair whose space is empty goes to
// `not_applicable` instead of `empty`, and a template that takes none of the
// problems is no error.
std::vector<PlannedPair> PlanPairs(const std::vector<SpaceSpec>& specs, const TuneOptions& options,
                                   const DeviceInfo& device,
                                   std::vector<std::string>* empty = nullptr,
                                   std::vector<std::string>* other_layout = nullptr,
                                   std::vector<std::string>* not_applicable = nullptr);

// How each config is timed: warm-up, repetitions, time, cache flush.
harness::BenchmarkPlan BenchmarkPlanOf(const TuneOptions& options);
// The device's peak microbenchmark: timed like the configs, the fp64 peak
// only where an f64 winner will be measured against it, the tensor cores'
// peak of an mma input type only where a tensor-core pair has a problem of it.
PeakRequest PeakRequestOf(const TuneOptions& options, const std::vector<PlannedPair>& pairs);

// A baseline's first call compiles the library's kernels (over 10 s for
// CLBlast on PoCL without its kernel cache), so it gets more than a config's
// default limit; the peak microbenchmark builds two small programs.
constexpr double kBaselineTimeoutSeconds = 300;
constexpr double kPeakTimeoutSeconds = 120;

// The pairs' bound spaces, in order.
std::vector<const BoundSpace*> SpacesOf(const std::vector<PlannedPair>& pairs);

}  // namespace beast
