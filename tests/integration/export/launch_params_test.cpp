// Launch-time parameters on the OpenCL CPU device, through the beast CLI: the
// test template test/launch_params has a work-group width WG applied at launch
// (`applied: launch`, never rendered) and local memory sized at launch
// (WG * SPAN floats, passed as the kernel's last __local argument). Its ten
// configs are all measured and correct, yet only two programs exist — one per
// SPAN — because configs that differ only at launch render the same source;
// the tuned library runs the winner with its launch-time local memory too.
// Configs of several launches, the same way: the test template test/staged,
// with SPLIT, runs two kernels before its own that fill a workspace (the
// first writes 2A, the second halves it), so its result is right only when
// every stage ran, in order, with the workspace after the contract's
// buffers; every config is correct, and the exported library runs a staged
// winner the same way. With SPLIT=2 a prepare stage copies B into the
// workspace first, once, outside the timed launches: still correct, with its
// own time recorded (prepare_ms).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

const std::string kTemplates = std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/kernel_templates";
// K = 37 is no multiple of any tile, so every chunk loop has a tail.
const char kProblem[] = "gemm:M=9,N=13,K=37";

class LaunchParams : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("launch_params");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every config of test template `name` (test/launch_params by default).
  testing::CommandResult Tune(const std::string& extra,
                              const std::string& name = "test/launch_params") {
    return RunCommand(BeastBinary() + " tune --templates " + kTemplates + " --template " + name +
                      " --problem " + kProblem +
                      " --device opencl:0 --baselines none --max-reps 5 --confirm-top 0 --db " +
                      db_ + " --cache-dir " + (dir_ / "cache").string() + " " + extra);
  }

  // Exports the database, builds launch_params_consumer on the export and
  // runs it with `args`; the export's table text in *table.
  void ExportAndRun(const std::string& args, std::string* table, testing::CommandResult* ran) {
    const fs::path out = dir_ / "tuned";
    testing::CommandResult exported =
        RunCommand(BeastBinary() + " export --templates " + kTemplates + " --db " + db_ +
                   " --out " + out.string());
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    std::ifstream text(out / "src" / "beast_kernels.c");
    table->assign(std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>());
    const std::string consumer =
        std::string(BEAST_TEST_SOURCE_DIR) + "/tests/integration/export/launch_params_consumer";
    const fs::path build = dir_ / "consumer";
    testing::CommandResult configured =
        RunCommand("cmake -S " + consumer + " -B " + build.string() +
                   " -DBEAST_TUNED_SOURCE_DIR=" + out.string());
    ASSERT_EQ(configured.exit_code, 0) << configured.output;
    testing::CommandResult built = RunCommand("cmake --build " + build.string());
    ASSERT_EQ(built.exit_code, 0) << built.output;
    *ran = RunCommand("BEAST_TUNED_CACHE_DIR= " + (build / "launch_params_consumer").string() +
                      " " + args);
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(LaunchParams, ConfigsDifferingOnlyAtLaunchShareOneProgramAndAreAllCorrect) {
  testing::CommandResult run = Tune("--compile-jobs 0 --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = testing::JsonOf(run.output);
  EXPECT_EQ(summary["programs_compiled"], 2) << run.output;
  EXPECT_EQ(summary["programs_from_cache"], 8) << run.output;

  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::map<std::string, results_db::ResultRow> rows;
  for (auto& r : store.Query({})) rows[r.config_key] = r;
  ASSERT_EQ(rows.size(), 10u);
  for (int span : {1, 4}) {
    for (int wg : {1, 2, 4, 8, 16}) {
      const std::string key = "SPAN=" + std::to_string(span) + ",WG=" + std::to_string(wg);
      ASSERT_TRUE(rows.count(key)) << key;
      const results_db::ResultRow& r = rows[key];
      EXPECT_EQ(r.status, beast::Status::kOk) << key << ": " << r.error_text;
      ASSERT_TRUE(r.max_error.has_value()) << key;
      EXPECT_LE(*r.max_error, 1.0) << key;
      EXPECT_EQ(nlohmann::json::parse(r.params_json), (nlohmann::json{{"SPAN", span}, {"WG", wg}}));
    }
  }
}

TEST_F(LaunchParams, TheCompilePoolBuildsEachSourceOnce) {
  testing::CommandResult run = Tune("--compile-jobs 2 --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(testing::JsonOf(run.output)["programs_compiled"], 2) << run.output;
  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::vector<results_db::ResultRow> rows = store.Query({});
  ASSERT_EQ(rows.size(), 10u);
  for (const auto& r : rows)
    EXPECT_EQ(r.status, beast::Status::kOk) << r.config_key << ": " << r.error_text;
}

TEST_F(LaunchParams, TheExportedLibraryRunsTheWinnerWithItsLocalMemory) {
  testing::CommandResult run = Tune("--compile-jobs 0 --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string text;
  testing::CommandResult ran;
  ASSERT_NO_FATAL_FAILURE(ExportAndRun("", &text, &ran));
  results_db::Store store = results_db::Store::OpenExisting(db_);
  results_db::QueryFilter best;
  best.best_only = true;
  std::vector<results_db::ResultRow> winner = store.Query(best);
  ASSERT_EQ(winner.size(), 1u);
  const std::string& key = winner[0].config_key;  // SPAN=s,WG=w
  const int span = std::stoi(key.substr(key.find("SPAN=") + 5));
  const int wg = std::stoi(key.substr(key.find("WG=") + 3));
  // The entry carries the winner's local memory: WG * SPAN floats.
  EXPECT_NE(text.find(", " + std::to_string(wg * span * 4) + "L,"), std::string::npos) << text;
  // The consumer built on the export ran it and checked the result.
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("config " + key + ","), std::string::npos) << ran.output;
}

TEST_F(LaunchParams, EveryStageOfAStagedConfigRunsInOrderAndEveryConfigIsCorrect) {
  testing::CommandResult run = Tune("--compile-jobs 1 --quiet", "test/staged");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::map<std::string, results_db::ResultRow> rows;
  for (auto& r : store.Query({})) rows[r.config_key] = r;
  ASSERT_EQ(rows.size(), 6u);
  for (const char* key : {"SPLIT=0,WG=1", "SPLIT=0,WG=4", "SPLIT=1,WG=1", "SPLIT=1,WG=4",
                          "SPLIT=2,WG=1", "SPLIT=2,WG=4"}) {
    ASSERT_TRUE(rows.count(key)) << key;
    EXPECT_EQ(rows[key].status, beast::Status::kOk) << key << ": " << rows[key].error_text;
    EXPECT_TRUE(rows[key].median_ms.has_value()) << key;
    // Only SPLIT=2 has a prepare stage: its time is kept apart from the
    // median (which then reads B from the workspace the stage filled once).
    const bool prepares = std::string(key).rfind("SPLIT=2", 0) == 0;
    EXPECT_EQ(rows[key].prepare_ms.has_value(), prepares) << key;
    if (prepares) EXPECT_GE(*rows[key].prepare_ms, 0) << key;
  }
}

TEST_F(LaunchParams, TheExportedLibraryRunsAStagedWinnerWithItsWorkspace) {
  testing::CommandResult run =
      Tune("--compile-jobs 0 --quiet --constraint 'hard: SPLIT == 1'", "test/staged");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string text;
  testing::CommandResult ran;
  ASSERT_NO_FATAL_FAILURE(ExportAndRun("test/staged", &text, &ran));
  // The entry lists its two stages and a workspace of M * K floats.
  EXPECT_NE(text.find("\"gemm_staged_double\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"gemm_staged_halve\""), std::string::npos) << text;
  EXPECT_NE(text.find(", 2, " + std::to_string(9 * 37 * 4) + "LL, 0}"), std::string::npos) << text;
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("config SPLIT=1,"), std::string::npos) << ran.output;
}

}  // namespace
}  // namespace beast
