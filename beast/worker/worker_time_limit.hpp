// How long one config may keep the device worker busy before the tuner kills
// the worker and records the config as `timeout`. The worker first makes the
// problem's inputs and reference on the host (once per problem, then kept;
// a Winograd kernel's error bound too): that is the problem's work, not the
// config's, and has a limit of its own, `setup_seconds` (a reference of the
// largest problems takes seconds to a minute; ten minutes means it is
// stuck). Then two limits, whichever ends first:
//
//  1. Absolute: `timeout_seconds` (beast tune --timeout-seconds, default 60)
//     from the moment the worker says the problem is ready — build,
//     validation and timing included. It catches everything, the first
//     config too.
//
//  2. Relative, once the problem has a best `ok` median b (from this run or,
//     on resume, the database): after the worker reports the build done, the
//     kernel may run for
//         kRunGraceSeconds + kJitFactor * build_seconds
//           + kSlowdownFactor * b * (1 + warmup + max_reps)
//     1 + warmup + max_reps is the most launches a measurement makes, so a
//     config up to kSlowdownFactor times slower than the best always finishes;
//     one slower than that is of no use to a tuner and stops costing time.
//     The grace and the build-time term cover host overheads and the first
//     launch, where PoCL generates the work-group code: that JIT takes 1 to 5
//     times as long as the build (measured on gemm/tiled and
//     conv2d/direct_nchw). An endless kernel is caught after about
//     kRunGraceSeconds instead of the full absolute cap.
#pragma once

#include <optional>
#include <string>

namespace beast {

constexpr double kRunGraceSeconds = 3.0;
constexpr double kJitFactor = 5.0;
constexpr double kSlowdownFactor = 50.0;
constexpr double kProblemSetupSeconds = 600.0;

struct TimeLimit {
  double timeout_seconds = 60;    // absolute, from the request
  std::optional<double> best_ms;  // best ok median of the problem so far
  int launches = 1;               // 1 (validation) + warm-up + max repetitions
  // The problem's setup, when the request has a problem (the tuner's is
  // --setup-seconds or --timeout-seconds, whichever is longer, for a config,
  // a baseline and a confirmation alike); nullopt: the absolute limit counts
  // from the request.
  std::optional<double> setup_seconds = kProblemSetupSeconds;

  // Seconds the kernel may run after a build of `compile_ms`; nullopt when
  // there is no best yet (only the absolute limit holds).
  std::optional<double> RunSeconds(double compile_ms) const;
  // Why a config was killed, for its error_text: which limit, and its terms.
  std::string DescribeAbsolute(double elapsed_seconds) const;
  std::string DescribeSetup(double elapsed_seconds) const;
  // The limit until the problem is ready: setup_seconds, or
  // timeout_seconds when there is no setup.
  double SetupSeconds() const;
  std::string DescribeRun(double compile_ms, double run_seconds) const;
};

}  // namespace beast
