// The search through beast tune: the strategy chooses the configs (the
// default first), beast query says which chose each, the summary says what
// the search cost and what it learned from other problems, a time budget and
// patience end it early, and bad search options are one line that writes
// nothing. (beast replay: replay_cli_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::JsonOf;
using testing::RunCommand;
using testing::SqlRows;

class SearchCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("search_cli"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) { return (dir_ / name).string(); }
  testing::CommandResult Tune(const std::string& problem, const std::string& extra) {
    return RunCommand(BeastBinary() + " tune --template gemm/tiled --problem " + problem +
                          " --device opencl:0 --max-reps 3 --baselines none --confirm-top 0 "
                          "--compile-jobs 0 --quiet --json --db " +
                          Path("beast.db") + " " + extra,
                      false);
  }

  fs::path dir_;
};

TEST_F(SearchCli, TheStrategyChoosesAfterTheDefaultAndQueryShowsWhichChose) {
  testing::CommandResult run =
      Tune("gemm:M=64,N=64,K=64", "--strategy random --max-configs 6 --seed 3");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json pair = JsonOf(run.output)["pairs"][0];
  EXPECT_EQ(pair["strategy"], "random");
  EXPECT_EQ(pair["selected"], 6);
  EXPECT_EQ(pair["measured"], 6);
  EXPECT_EQ(pair["transferred"], 0);  // random learns nothing
  EXPECT_GE(JsonOf(run.output)["proposal_seconds"].get<double>(), 0.0);
  EXPECT_EQ(SqlRows(Path("beast.db"),
                    "SELECT strategy, count(*) FROM measurements GROUP BY strategy ORDER BY 1"),
            (std::vector<std::string>{"default|1", "random|5"}));
  testing::CommandResult csv =
      RunCommand(BeastBinary() + " query --db " + Path("beast.db") + " --csv", false);
  ASSERT_EQ(csv.exit_code, 0);
  // (the resource columns follow: OpenCL reports local memory)
  EXPECT_EQ(CountOccurrences(csv.output, ",default,"), 1u) << csv.output;
  EXPECT_EQ(CountOccurrences(csv.output, ",random,"), 5u) << csv.output;
  // The same command again measures nothing: its trajectory is in the database.
  testing::CommandResult again =
      Tune("gemm:M=64,N=64,K=64", "--strategy random --max-configs 6 --seed 3");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(JsonOf(again.output)["pairs"][0]["measured"], 0);
  EXPECT_EQ(JsonOf(again.output)["pairs"][0]["skipped"], 6);
}

TEST_F(SearchCli, TheModelLearnsFromTheTemplatesOtherProblemsUnlessToldNot) {
  ASSERT_EQ(Tune("gemm:M=64,N=64,K=64", "--max-configs 5").exit_code, 0);
  // K=128 admits every config K=64 does (its constraints are divisibility).
  testing::CommandResult warm = Tune("gemm:M=64,N=64,K=128", "--max-configs 5");
  ASSERT_EQ(warm.exit_code, 0) << warm.output;
  EXPECT_EQ(JsonOf(warm.output)["pairs"][0]["strategy"], "model");
  EXPECT_EQ(JsonOf(warm.output)["pairs"][0]["transferred"], 5);
  testing::CommandResult cold = Tune("gemm:M=64,N=64,K=256", "--max-configs 5 --transfer none");
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_EQ(JsonOf(cold.output)["pairs"][0]["transferred"], 0);
  // Every search keeps its lead (2, a CPU device's), and the cutoff of each
  // that gathered a transfer set.
  EXPECT_EQ(SqlRows(Path("beast.db"), "SELECT count(*), min(lead), max(lead) FROM searches"),
            (std::vector<std::string>{"3|2|2"}));
}

TEST_F(SearchCli, ATimeBudgetAndPatienceEndTheSearchEarly) {
  // The whole space is the budget, so only the time or the patience ends it.
  // The clock starts with the run: the device's peak and the first builds
  // come out of it, and with PoCL's cache cold they took 2 s on their own
  // (nothing measured), so the budget is 8 s; 60,008 configs take far more.
  testing::CommandResult timed = Tune("gemm:M=64,N=64,K=64", "--time-budget 8s");
  ASSERT_EQ(timed.exit_code, 0) << timed.output;
  const nlohmann::json pair = JsonOf(timed.output)["pairs"][0];
  EXPECT_EQ(pair["strategy"], "model");
  EXPECT_GT(pair["measured"].get<int>(), 0);
  EXPECT_LT(pair["measured"].get<int>(), pair["space_size"].get<int>());
  EXPECT_FALSE(JsonOf(timed.output)["interrupted"].get<bool>());

  testing::CommandResult patient =
      Tune("gemm:M=32,N=32,K=32", "--strategy exhaustive --patience 3");
  ASSERT_EQ(patient.exit_code, 0) << patient.output;
  const nlohmann::json p = JsonOf(patient.output)["pairs"][0];
  EXPECT_LT(p["measured"].get<int>(), p["space_size"].get<int>());
}

TEST_F(SearchCli, BadSearchOptionsAreOneLineAndWriteNothing) {
  struct Case {
    std::string options;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"--strategy anneal",
            "beast tune: unknown strategy \"anneal\" (known: model, random, exhaustive)\n"},
           {"--time-budget 5x",
            "beast tune: --time-budget must be a duration such as 90m, 1h30m or 45s, up to a year, "
            "not "
            "\"5x\"\n"},
           {"--time-budget 0s",
            "beast tune: --time-budget must be a duration such as 90m, 1h30m or 45s, up to a year, "
            "not "
            "\"0s\"\n"},
           {"--time-budget 1h30",
            "beast tune: --time-budget must be a duration such as 90m, 1h30m or 45s, up to a "
            "year, not \"1h30\"\n"},
           {"--time-budget 1e10s",
            "beast tune: --time-budget must be a duration such as 90m, 1h30m or 45s, up to a "
            "year, not \"1e10s\"\n"},
           {"--seed -1", "beast tune: --seed must not be negative\n"},
           {"--patience -1", "beast tune: --patience must not be negative\n"},
           {"--transfer maybe", "beast tune: --transfer must be auto or none, not \"maybe\"\n"}}) {
    testing::CommandResult r = RunCommand(
        BeastBinary() + " tune --template gemm/tiled --problem gemm:M=64,N=64,K=64 --db " +
            Path("beast.db") + " " + c.options + " 2>&1 >/dev/null",
        false);
    EXPECT_EQ(r.exit_code, 2) << c.options << "\n" << r.output;
    EXPECT_EQ(r.output, c.message) << c.options;
    EXPECT_FALSE(fs::exists(Path("beast.db"))) << c.options;
  }
}

}  // namespace
}  // namespace beast
