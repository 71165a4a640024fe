// The simulated clock of a GPU run: PipelineClock by hand (builds start
// when proposed and a worker is free, in trajectory order; the device
// measures in that order, each when built), and Replay on it
// (ReplaySettings::workers): configs start building when the driver proposes
// them, not before, so with lead 0 each batch of the model's 8 is built only
// after the last was measured.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "beast/search/pipeline_clock.hpp"
#include "beast/search/recorded_space.hpp"
#include "beast/search/replay.hpp"

namespace beast {
namespace {

TEST(PipelineClock, TwoWorkersAndOneDeviceByHand) {
  PipelineClock clock(2);
  clock.Proposed(1.0);  // worker A: 0 -> 1
  clock.Proposed(2.0);  // worker B: 0 -> 2
  clock.Proposed(3.0);  // waits for A: 1 -> 4
  EXPECT_EQ(clock.proposed(), 3u);
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 1.5);  // built at 1
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 2.5);  // built at 2
  clock.Proposed(1.0);                        // proposed at 2.5, B free since 2: -> 3.5
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 4.5);  // built at 4
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 5.0);  // built at 3.5, the device busy until 4.5
  EXPECT_DOUBLE_EQ(clock.now(), 5.0);
}

TEST(PipelineClock, ABuildNeverStartsBeforeItIsProposed) {
  PipelineClock clock(4);
  clock.Proposed(1.0);
  EXPECT_DOUBLE_EQ(clock.Measure(10.0), 11.0);
  clock.Proposed(1.0);  // proposed at 11 though three workers idled since 0
  EXPECT_DOUBLE_EQ(clock.Measure(1.0), 13.0);
}

// 24 configs x = 0..23, x + 1 ms each; every one takes 1 s to build and
// 10 ms to measure.
RecordedSpace UniformCosts() {
  RecordedSpace recorded;
  recorded.source = "uniform";
  recorded.names = {"x"};
  for (int64_t x = 0; x < 24; ++x) {
    Config c(recorded.names, {Value::Int(x)});
    Trial t;
    t.config = c;
    t.ms = 1.0 + static_cast<double>(x);
    recorded.configs.push_back(c);
    recorded.outcomes.push_back(t);
    recorded.costs.push_back({1000.0, 10.0});
  }
  return recorded;
}

// `strategy` replayed over the whole space on 8 simulated workers, with the
// next batch proposed when `lead` are left; configs measured by each time.
std::vector<double> MeasuredBy(const std::string& strategy, size_t lead,
                               std::vector<double> at_seconds, ReplayResult* result = nullptr) {
  const RecordedSpace recorded = UniformCosts();
  const ListedSearchSpace space = recorded.Space();
  ReplaySettings settings;
  settings.budget = 24;
  settings.repeats = 2;
  settings.lead = lead;
  settings.workers = 8;
  settings.at_seconds = std::move(at_seconds);
  const ReplayResult r = Replay(recorded, space, strategy, settings);
  if (result) *result = r;
  return r.mean_evaluations_at;
}

TEST(ReplayClock, EachBatchBuildsOnlyOnceProposed) {
  // Lead 0: the model's next batch of 8 when the last is all measured. Batch
  // 1 proposed at 0, built at 1, measured by 1.08; batch 2 proposed at 1.08,
  // built at 2.08, measured by 2.16; batch 3 by 3.24.
  ReplayResult r;
  EXPECT_EQ(MeasuredBy("model", 0, {1.055, 1.5, 2.5, 3.5}, &r),
            (std::vector<double>{5, 8, 16, 24}));
  EXPECT_EQ(r.mean_fraction_at.back(), 1.0);  // the whole space measured
  for (const ReplayRun& run : r.runs) EXPECT_EQ(run.evaluations, 24u);
}

TEST(ReplayClock, AWholeSpaceProposedAtOnceIsBuiltByEveryWorker) {
  // Random proposes 32 at once (all 24 here): 8 workers build 3 rounds of 8,
  // done at 1, 2 and 3 s; the device keeps up.
  EXPECT_EQ(MeasuredBy("random", 2, {1.5, 2.5, 3.5}), (std::vector<double>{8, 16, 24}));
}

}  // namespace
}  // namespace beast
