// Timing statistics: summary of repeated measurements (median, quartiles,
// spread) and the benchmark loop that decides how many repetitions to take.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace beast::harness {

// Quantiles interpolate linearly between order statistics (the definition of
// numpy.quantile's default, "type 7"), so they can be checked by hand.
struct SampleStats {
  double median = 0;
  double p25 = 0;
  double p75 = 0;
  double min = 0;
  double mean = 0;
  double spread = 0;  // (p75 - p25) / median; 0 when the median is 0
};

// Throws Error(kBadArgument) for no samples.
SampleStats Summarize(std::vector<double> samples);

struct BenchmarkPlan {
  int warmup = 2;               // runs whose result is discarded (caches, clocks, JIT)
  int min_reps = 5;             // never fewer timed samples than this
  int max_reps = 30;            // never more
  double max_seconds = 2.0;     // wall-clock budget of the timed runs, checked after min_reps
  double target_rel_ci = 0.02;  // stop once the 95% CI of the median is within +-2%
  // Early stop of clear losers: once loser_reps samples are in, a config
  // whose fastest sample is more than loser_factor times best_ms (the best
  // median so far on the problem; 0: none yet) stops. Its median is still
  // honest, only less precise, and it cannot be the winner.
  double best_ms = 0;
  int loser_reps = 3;
  double loser_factor = 2.0;
  // Write over the device's last-level cache before every launch (outside
  // the timed span), so each run starts cold as a call in an application
  // would: the L2 on a GPU, the CPU's caches on PoCL. The backend does it.
  bool flush_cache = false;
};

// Relative half-width of a distribution-free 95% confidence interval of the
// median: order statistics x(j), x(k) with j = round(n/2 - 0.98 sqrt(n)),
// k = round(1 + n/2 + 0.98 sqrt(n)) (1-based, clamped to 1..n; the normal
// approximation of the binomial ranks), giving (x(k) - x(j)) / (2 |median|).
// Kernel times are skewed by outliers, so nothing assumes they are normal.
// 0 when the median is 0, infinity for no samples.
double MedianRelativeHalfWidth(std::vector<double> samples);

// Runs `run_once` plan.warmup times, then collects its values until
// MedianRelativeHalfWidth <= target_rel_ci (after min_reps), max_reps are
// taken, max_seconds have passed (after min_reps), or the config is a clear
// loser (see BenchmarkPlan::best_ms). Returns the raw timed
// samples. When run_once returns nullopt the loop stops at once: `error` (if
// not null) names the failing run and the samples so far are returned;
// otherwise `error` is cleared. Throws Error(kBadArgument) for an impossible
// plan (warmup < 0, min_reps < 1, max_reps < min_reps).
std::vector<double> Benchmark(const std::function<std::optional<double>()>& run_once,
                              const BenchmarkPlan& plan, std::string* error);

}  // namespace beast::harness
