// Replay on a simulated clock (ReplaySettings::workers): configs start
// building when the driver proposes them, not before, so with lead 0 each
// batch of the model's 8 is built only after the last was measured.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "beast/search/recorded_space.hpp"
#include "beast/search/replay.hpp"

namespace beast {
namespace {

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

TEST(ReplayClock, EachBatchBuildsOnlyOnceProposed) {
  const RecordedSpace recorded = UniformCosts();
  const ListedSearchSpace space = recorded.Space();
  ReplaySettings settings;
  settings.budget = 24;
  settings.repeats = 2;
  settings.lead = 0;  // the next batch when the last is all measured
  settings.workers = 8;
  settings.at_seconds = {1.055, 1.5, 2.5, 3.5};
  const ReplayResult r = Replay(recorded, space, "model", settings);
  // Batch 1 proposed at 0, built at 1, measured by 1.08; batch 2 proposed at
  // 1.08, built at 2.08, measured by 2.16; batch 3 by 3.24.
  EXPECT_EQ(r.mean_evaluations_at, (std::vector<double>{5, 8, 16, 24}));
  EXPECT_EQ(r.mean_fraction_at.back(), 1.0);  // the whole space measured
  for (const ReplayRun& run : r.runs) EXPECT_EQ(run.evaluations, 24u);
}

TEST(ReplayClock, AWholeSpaceProposedAtOnceIsBuiltByEveryWorker) {
  // Random proposes 32 at once (all 24 here): 8 workers build 3 rounds of 8,
  // done at 1, 2 and 3 s; the device keeps up.
  const RecordedSpace recorded = UniformCosts();
  const ListedSearchSpace space = recorded.Space();
  ReplaySettings settings;
  settings.budget = 24;
  settings.repeats = 1;
  settings.workers = 8;
  settings.at_seconds = {1.5, 2.5, 3.5};
  const ReplayResult r = Replay(recorded, space, "random", settings);
  EXPECT_EQ(r.mean_evaluations_at, (std::vector<double>{8, 16, 24}));
}

}  // namespace
}  // namespace beast
