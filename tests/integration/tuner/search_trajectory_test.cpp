// A pair's search trajectory (beast/tuner/pair_trajectory.hpp) on a real
// database, with the model strategy past its initial design. The "device" is
// a fixed function of the config, so two runs see the same measurements and
// must make the same trajectory: a run killed midway and resumed continues
// it exactly, even when other problems were tuned in between (the transfer
// cutoff is in the database); two processes sharing it as shards measure
// together what one would; a larger budget extends it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/problem/problem.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/tuner/pair_trajectory.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/space_test_util.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The synthetic device: a smooth function of the tile sizes with its best
// at MWG=32, NWG=64, plus a fixed per-config term so no two tie.
double SyntheticMs(const Config& c) {
  const double mwg = std::log2(static_cast<double>(c.Find("MWG")->i));
  const double nwg = std::log2(static_cast<double>(c.Find("NWG")->i));
  const double jitter = static_cast<double>(std::hash<std::string>()(c.Key()) % 1000) / 1e4;
  return 1.0 + std::abs(mwg - 5) + std::abs(nwg - 6) + jitter;
}

class SearchTrajectory : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("search_trajectory");
    spec_ = SpaceSpec::Load(std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates", "gemm/tiled");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Db(const std::string& name) { return (dir_ / name).string(); }

  // The pair of `problem`, its budget and strategy as a tuning run plans them.
  PlannedPair Pair(const Problem& problem, uint64_t budget) {
    PlannedPair p;
    p.spec = &spec_;
    p.problem = &problem;
    p.space = std::make_unique<BoundSpace>(spec_, problem, testing::TestDevice(), BindOptions());
    p.count = p.space->Count();
    p.default_config = p.space->DefaultConfig();
    p.has_default = true;
    p.budget = budget;
    p.strategy = "model";
    return p;
  }

  // Follows the pair's trajectory in `db`, measuring with the synthetic
  // device, until it ends or `stop_after` configs were measured (a kill);
  // returns how many it measured.
  size_t Follow(const std::string& db, const PlannedPair& pair, size_t stop_after = SIZE_MAX,
                int shard_index = 0, int shard_count = 1) {
    results_db::Store store = results_db::Store::Open(db);
    results_db::DeviceRecord d;
    d.name = "synthetic";
    const int64_t device = store.UpsertDevice(d);
    const int64_t problem =
        store.UpsertProblem(pair.problem->Key(), pair.problem->OpName(), pair.problem->Flops());
    const int64_t tmpl = store.UpsertTemplate(spec_.name, spec_.hash, spec_.source_rel);
    const int64_t run = store.BeginRun("test", "0");
    PairTrajectory::Options o;
    o.seed = 5;
    o.shard_index = shard_index;
    o.shard_count = shard_count;
    o.shard_wait_seconds = 60;
    PairTrajectory trajectory(pair, store, device, problem, tmpl, o);
    std::atomic<bool> stop{false};
    size_t measured = 0;
    while (measured < stop_after) {
      std::optional<Config> config = trajectory.Next(Clock::time_point::max(), stop);
      if (!config) break;
      results_db::MeasurementRecord m;
      m.run_id = run;
      m.device_id = device;
      m.problem_id = problem;
      m.config_id = store.UpsertConfig(tmpl, config->Key(), config->Hash(), config->ToJson());
      m.median_ms = SyntheticMs(*config);
      m.samples_ms = {*m.median_ms};
      m.strategy = trajectory.ChosenBy(*config);
      store.RecordMeasurement(m);
      trajectory.Measured(*config, Status::kOk, m.median_ms);
      ++measured;
    }
    last_transferred_ = trajectory.transferred();
    last_skipped_ = trajectory.skipped();
    return measured;
  }

  // The configs measured for `problem`, in the order they were recorded,
  // each with what chose it.
  std::vector<std::string> Recorded(const std::string& db, const Problem& problem) {
    return testing::SqlRows(db,
                            "SELECT c.config_key || ' ' || m.strategy FROM measurements m "
                            "JOIN configs c ON c.id = m.config_id JOIN problems p ON "
                            "p.id = m.problem_id WHERE p.key = '" +
                                problem.Key() + "' ORDER BY m.id");
  }

  fs::path dir_;
  SpaceSpec spec_;
  uint64_t last_transferred_ = 0, last_skipped_ = 0;
};

TEST_F(SearchTrajectory, AKilledRunResumedContinuesTheSameTrajectory) {
  const Problem first = Problem::Parse("gemm:M=64,N=64,K=64");
  const Problem second = Problem::Parse("gemm:M=64,N=64,K=128");
  const Problem third = Problem::Parse("gemm:M=128,N=64,K=64");
  PlannedPair first_pair = Pair(first, 24), second_pair = Pair(second, 40);
  PlannedPair third_pair = Pair(third, 10);

  // Uninterrupted: the first problem, then the second (learning from the first).
  ASSERT_EQ(Follow(Db("reference.db"), first_pair), 24u);
  ASSERT_EQ(Follow(Db("reference.db"), second_pair), 40u);
  EXPECT_EQ(last_transferred_, 24u);  // every config of the first is a point of the second
  const std::vector<std::string> reference = Recorded(Db("reference.db"), second);
  ASSERT_EQ(reference.size(), 40u);
  EXPECT_EQ(reference.front().substr(reference.front().rfind(' ')), " default");
  EXPECT_EQ(reference.back().substr(reference.back().rfind(' ')), " model");

  // Killed after 13 of the second problem's configs (past the 9 of its first
  // batch, so the model has proposed again); a third problem is tuned
  // meanwhile; the same command resumes.
  ASSERT_EQ(Follow(Db("resumed.db"), first_pair), 24u);
  ASSERT_EQ(Follow(Db("resumed.db"), second_pair, 13), 13u);
  ASSERT_EQ(Follow(Db("resumed.db"), third_pair), 10u);
  ASSERT_EQ(Follow(Db("resumed.db"), second_pair), 27u);
  EXPECT_EQ(last_skipped_, 13u);
  EXPECT_EQ(last_transferred_, 24u);  // not the third's: they came after the search began
  EXPECT_EQ(Recorded(Db("resumed.db"), second), reference);

  // Nothing is left: the same command again measures nothing.
  EXPECT_EQ(Follow(Db("resumed.db"), second_pair), 0u);
  EXPECT_EQ(last_skipped_, 40u);
  // A larger budget extends the trajectory.
  PlannedPair longer = Pair(second, 48);
  EXPECT_EQ(Follow(Db("resumed.db"), longer), 8u);
  const std::vector<std::string> extended = Recorded(Db("resumed.db"), second);
  EXPECT_EQ(std::vector<std::string>(extended.begin(), extended.begin() + 40), reference);
}

TEST_F(SearchTrajectory, TwoShardsMeasureTogetherWhatOneRunWould) {
  const Problem problem = Problem::Parse("gemm:M=64,N=64,K=64");
  PlannedPair pair = Pair(problem, 30);
  ASSERT_EQ(Follow(Db("one.db"), pair), 30u);
  std::vector<std::string> one = Recorded(Db("one.db"), problem);

  // Created first, so the two shards find one database; each opens it itself.
  results_db::Store::Open(Db("shared.db"));
  size_t measured[2] = {0, 0};
  std::thread a([&] { measured[0] = Follow(Db("shared.db"), pair, SIZE_MAX, 0, 2); });
  std::thread b([&] { measured[1] = Follow(Db("shared.db"), pair, SIZE_MAX, 1, 2); });
  a.join();
  b.join();
  EXPECT_EQ(measured[0], 15u);
  EXPECT_EQ(measured[1], 15u);
  std::vector<std::string> shared = Recorded(Db("shared.db"), problem);
  // The same configs; the order of the rows is the order they finished in.
  EXPECT_EQ(std::multiset<std::string>(shared.begin(), shared.end()),
            std::multiset<std::string>(one.begin(), one.end()));
}

}  // namespace
}  // namespace beast
