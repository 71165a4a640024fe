// Sample statistics and the adaptive repetition loop of a benchmark.
#include "harness/measure/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "beast/core/error.hpp"

namespace beast::harness {
namespace {

// Quantile q of sorted data, linear between order statistics (type 7).
double Quantile(const std::vector<double>& sorted, double q) {
  double h = (static_cast<double>(sorted.size()) - 1.0) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

SampleStats Summarize(std::vector<double> samples) {
  if (samples.empty()) throw Error(ErrorCode::kBadArgument, "no samples to summarize");
  std::sort(samples.begin(), samples.end());
  SampleStats stats;
  stats.median = Quantile(samples, 0.5);
  stats.p25 = Quantile(samples, 0.25);
  stats.p75 = Quantile(samples, 0.75);
  stats.min = samples.front();
  stats.mean =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  stats.spread = stats.median != 0 ? (stats.p75 - stats.p25) / stats.median : 0.0;
  return stats;
}

double MedianRelativeHalfWidth(std::vector<double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::infinity();
  std::sort(samples.begin(), samples.end());
  double n = static_cast<double>(samples.size());
  double median = Quantile(samples, 0.5);
  if (median == 0) return 0;
  auto rank = [n](double r) { return static_cast<size_t>(std::clamp(std::round(r), 1.0, n)); };
  size_t j = rank(n / 2 - 0.98 * std::sqrt(n));
  size_t k = rank(1 + n / 2 + 0.98 * std::sqrt(n));
  return (samples[k - 1] - samples[j - 1]) / (2 * std::fabs(median));
}

std::vector<double> Benchmark(const std::function<std::optional<double>()>& run_once,
                              const BenchmarkPlan& plan, std::string* error) {
  if (plan.warmup < 0 || plan.min_reps < 1 || plan.max_reps < plan.min_reps) {
    throw Error(ErrorCode::kBadArgument,
                "impossible benchmark plan: warmup " + std::to_string(plan.warmup) + ", min_reps " +
                    std::to_string(plan.min_reps) + ", max_reps " + std::to_string(plan.max_reps) +
                    " (need warmup >= 0, 1 <= min <= max)");
  }
  if (error) error->clear();
  std::vector<double> samples;
  for (int i = 0; i < plan.warmup; ++i) {
    if (!run_once()) {
      if (error) *error = "warm-up run " + std::to_string(i + 1) + " failed";
      return samples;
    }
  }
  auto start = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < plan.max_reps) {
    std::optional<double> value = run_once();
    if (!value) {
      if (error) *error = "timed run " + std::to_string(samples.size() + 1) + " failed";
      return samples;
    }
    samples.push_back(*value);
    const int n = static_cast<int>(samples.size());
    if (plan.best_ms > 0 && n >= plan.loser_reps &&
        *std::min_element(samples.begin(), samples.end()) > plan.loser_factor * plan.best_ms) {
      break;  // a clear loser: more samples would only refine a time nobody picks
    }
    if (n < plan.min_reps) continue;
    if (MedianRelativeHalfWidth(samples) <= plan.target_rel_ci) break;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= plan.max_seconds) break;
  }
  return samples;
}

}  // namespace beast::harness
