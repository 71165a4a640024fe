// Configs of several launches on the OpenCL CPU device, through the beast
// CLI: the test template test/staged, with SPLIT, runs two kernels before its
// own that fill a workspace (the first writes 2A, the second halves it), so
// its result is right only when the harness launched every stage, in order,
// with the workspace after the contract's buffers. Every config is measured
// and correct, and the exported library runs a staged winner the same way.
#include <gtest/gtest.h>

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
const char kProblem[] = "gemm:M=9,N=13,K=37";

class StagedLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("staged_launch");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::CommandResult Tune(const std::string& extra) {
    return RunCommand(BeastBinary() + " tune --templates " + kTemplates +
                      " --template test/staged --problem " + kProblem +
                      " --device opencl:0 --baselines none --max-reps 5 --db " + db_ +
                      " --cache-dir " + (dir_ / "cache").string() + " " + extra);
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(StagedLaunch, EveryStageRunsInOrderAndEveryConfigIsCorrect) {
  testing::CommandResult run = Tune("--compile-jobs 1 --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::map<std::string, results_db::ResultRow> rows;
  for (auto& r : store.Query({})) rows[r.config_key] = r;
  ASSERT_EQ(rows.size(), 4u);
  for (const char* key : {"SPLIT=0,WG=1", "SPLIT=0,WG=4", "SPLIT=1,WG=1", "SPLIT=1,WG=4"}) {
    ASSERT_TRUE(rows.count(key)) << key;
    EXPECT_EQ(rows[key].status, beast::Status::kOk) << key << ": " << rows[key].error_text;
    EXPECT_TRUE(rows[key].median_ms.has_value()) << key;
  }
}

TEST_F(StagedLaunch, TheExportedLibraryRunsAStagedWinnerWithItsWorkspace) {
  testing::CommandResult run = Tune("--compile-jobs 0 --quiet --constraint 'hard: SPLIT == 1'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const fs::path out = dir_ / "tuned";
  testing::CommandResult exported = RunCommand(BeastBinary() + " export --templates " + kTemplates +
                                               " --db " + db_ + " --out " + out.string());
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  std::ifstream table(out / "src" / "beast_kernels.c");
  std::string text((std::istreambuf_iterator<char>(table)), std::istreambuf_iterator<char>());
  // The entry lists its two stages and a workspace of M * K floats.
  EXPECT_NE(text.find("\"gemm_staged_double\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"gemm_staged_halve\""), std::string::npos) << text;
  EXPECT_NE(text.find(", 2, " + std::to_string(9 * 37 * 4) + "LL}"), std::string::npos) << text;

  const std::string consumer =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/integration/export/launch_params_consumer";
  const fs::path build = dir_ / "consumer";
  testing::CommandResult configured = RunCommand("cmake -S " + consumer + " -B " + build.string() +
                                                 " -DBEAST_TUNED_SOURCE_DIR=" + out.string());
  ASSERT_EQ(configured.exit_code, 0) << configured.output;
  testing::CommandResult built = RunCommand("cmake --build " + build.string());
  ASSERT_EQ(built.exit_code, 0) << built.output;
  testing::CommandResult ran = RunCommand(
      "BEAST_TUNED_CACHE_DIR= " + (build / "launch_params_consumer").string() + " test/staged");
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("config SPLIT=1,"), std::string::npos) << ran.output;
}

}  // namespace
}  // namespace beast
