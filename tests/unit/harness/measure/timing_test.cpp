// Timing statistics and the benchmark repetition loop.
#include "harness/measure/timing.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"

namespace beast::harness {
namespace {

TEST(Summarize, EvenCountInterpolatesQuartiles) {
  SampleStats stats = Summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(stats.median, 2.5);
  EXPECT_DOUBLE_EQ(stats.p25, 1.75);
  EXPECT_DOUBLE_EQ(stats.p75, 3.25);
  EXPECT_DOUBLE_EQ(stats.min, 1);
  EXPECT_DOUBLE_EQ(stats.mean, 2.5);
  EXPECT_DOUBLE_EQ(stats.spread, 0.6);
}

TEST(Summarize, OddCountAndSingleSample) {
  SampleStats stats = Summarize({9, 5, 1});
  EXPECT_DOUBLE_EQ(stats.median, 5);
  EXPECT_DOUBLE_EQ(stats.p25, 3);
  EXPECT_DOUBLE_EQ(stats.p75, 7);
  EXPECT_DOUBLE_EQ(stats.spread, 0.8);
  SampleStats one = Summarize({0.25});
  EXPECT_DOUBLE_EQ(one.median, 0.25);
  EXPECT_DOUBLE_EQ(one.p25, 0.25);
  EXPECT_DOUBLE_EQ(one.spread, 0);
  EXPECT_THROW(Summarize({}), Error);
}

TEST(MedianRelativeHalfWidth, OrderStatisticInterval) {
  // n = 10: ranks round(5 - 3.099) = 2 and round(9.099) = 9, so (9 - 2) / (2 * 5.5).
  EXPECT_DOUBLE_EQ(MedianRelativeHalfWidth({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 7.0 / 11.0);
  // n = 5: the interval is the whole range: (5 - 1) / (2 * 3).
  EXPECT_DOUBLE_EQ(MedianRelativeHalfWidth({3, 1, 5, 2, 4}), 4.0 / 6.0);
  EXPECT_EQ(MedianRelativeHalfWidth({2, 2, 2, 2, 2}), 0);
  EXPECT_EQ(MedianRelativeHalfWidth({}), std::numeric_limits<double>::infinity());
}

TEST(Benchmark, StableSamplesStopAtMinReps) {
  int calls = 0;
  std::string error = "stale";
  std::vector<double> samples =
      Benchmark([&calls]() -> std::optional<double> { return ++calls > 2 ? 1.0 : 100.0; },
                BenchmarkPlan(), &error);
  EXPECT_EQ(samples, std::vector<double>(5, 1.0));  // warm-up values discarded
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(error, "");
}

TEST(Benchmark, NoisySamplesStopAtMaxReps) {
  int calls = 0;
  BenchmarkPlan plan;
  plan.max_seconds = 1e9;
  std::vector<double> samples = Benchmark(
      [&calls]() -> std::optional<double> { return ++calls % 2 ? 1.0 : 2.0; }, plan, nullptr);
  EXPECT_EQ(samples.size(), 30u);
  EXPECT_EQ(calls, 32);
}

TEST(Benchmark, TimeBudgetStopsAfterMinReps) {
  BenchmarkPlan plan;
  plan.warmup = 0;
  plan.min_reps = 3;
  plan.max_reps = 1000;
  plan.max_seconds = 0.02;
  int calls = 0;
  std::vector<double> samples = Benchmark(
      [&calls]() -> std::optional<double> {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return ++calls % 2 ? 1.0 : 2.0;
      },
      plan, nullptr);
  // Each run sleeps at least 2 ms, so 0.02 s have passed after 10 runs.
  EXPECT_GE(samples.size(), 3u);
  EXPECT_LE(samples.size(), 10u);
}

TEST(Benchmark, FailureStopsAndSaysWhere) {
  int calls = 0;
  std::string error;
  std::vector<double> samples = Benchmark(
      [&calls]() -> std::optional<double> {
        if (++calls == 5) return std::nullopt;
        return 3.0;
      },
      BenchmarkPlan(), &error);
  EXPECT_EQ(samples, (std::vector<double>{3.0, 3.0}));
  EXPECT_EQ(error, "timed run 3 failed");

  samples =
      Benchmark([]() -> std::optional<double> { return std::nullopt; }, BenchmarkPlan(), &error);
  EXPECT_TRUE(samples.empty());
  EXPECT_EQ(error, "warm-up run 1 failed");
}

TEST(Benchmark, RejectsImpossiblePlans) {
  auto run = []() -> std::optional<double> { return 1.0; };
  BenchmarkPlan plan;
  plan.min_reps = 0;
  EXPECT_THROW(Benchmark(run, plan, nullptr), Error);
  plan = BenchmarkPlan();
  plan.max_reps = 4;
  EXPECT_THROW(Benchmark(run, plan, nullptr), Error);
  plan = BenchmarkPlan();
  plan.warmup = -1;
  EXPECT_THROW(Benchmark(run, plan, nullptr), Error);
}

}  // namespace
}  // namespace beast::harness

namespace beast::harness {
namespace {

// Replays `values` in order (warm-ups included), counting the calls.
std::function<std::optional<double>()> Replay(std::vector<double> values, int* calls) {
  return [values, calls]() -> std::optional<double> {
    return values[std::min<size_t>(static_cast<size_t>((*calls)++), values.size() - 1)];
  };
}

TEST(BenchmarkEarlyStop, ClearLosersStopAfterLoserRepsSamples) {
  BenchmarkPlan plan;
  plan.warmup = 1;
  plan.min_reps = 5;
  plan.best_ms = 1.0;  // loser_reps 3, loser_factor 2
  int calls = 0;
  // Every timed sample above 2 ms: three are enough to know.
  EXPECT_EQ(Benchmark(Replay({9, 3.0, 2.5, 2.1, 1.0}, &calls), plan, nullptr),
            (std::vector<double>{3.0, 2.5, 2.1}));
  EXPECT_EQ(calls, 4);
  // One sample within 2x of the best keeps it in the race to min_reps.
  calls = 0;
  EXPECT_GE(Benchmark(Replay({9, 3.0, 1.9, 2.1, 2.1, 2.1}, &calls), plan, nullptr).size(), 5u);
  // No best yet: no early stop.
  plan.best_ms = 0;
  calls = 0;
  EXPECT_EQ(Benchmark(Replay({9, 30, 30, 30, 30, 30}, &calls), plan, nullptr).size(), 5u);
}

}  // namespace
}  // namespace beast::harness
