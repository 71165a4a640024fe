// The post-compile stage on the OpenCL CPU device, through the beast CLI: the
// test template test/local_stage stages 32 to 1024 floats of local memory per
// config; its constraint `local_mem_used <= 1024` (bound to
// CL_KERNEL_LOCAL_MEM_SIZE) prunes exactly the configs staging more than 1 KiB
// before they run, its constraint on registers (which OpenCL does not report)
// is not applied and the run says so in one line, every measurement stores
// the kernel's local and private memory, and a rerun records nothing new.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;

const std::string kTemplates = std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/kernel_templates";
const std::string kSpaceFile = kTemplates + "/test/local_stage.space.yaml";

class PostCompileOpenCl : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("post_compile");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::CommandResult Tune(const std::string& extra = "") {
    return RunCommand(BeastBinary() + " tune --templates " + kTemplates +
                      " --template test/local_stage --problem gemm:M=16,N=16,K=16 --device "
                      "opencl:0 --baselines none --max-reps 5 --db " +
                      db_ + " " + extra);
  }

  // config key -> row
  std::map<std::string, results_db::ResultRow> Rows() {
    std::map<std::string, results_db::ResultRow> out;
    results_db::Store store = results_db::Store::OpenExisting(db_);
    for (auto& r : store.Query({})) out[r.config_key] = r;
    return out;
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(PostCompileOpenCl, LocalMemoryConstraintPrunesBeforeTheRun) {
  testing::CommandResult run = Tune();
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string not_applied =
      "post-compile constraints not applied: opencl reports no registers or spills: "
      "\"registers <= 1\" (" +
      kSpaceFile + ":18)\n";
  EXPECT_EQ(CountOccurrences(run.output, not_applied), 1u) << run.output;
  EXPECT_EQ(run.output.find("post-compile"), run.output.find(not_applied)) << run.output;

  std::map<std::string, results_db::ResultRow> rows = Rows();
  ASSERT_EQ(rows.size(), 5u);
  const std::string violation =
      "violates hard constraint \"local_mem_used <= 1024\" (" + kSpaceFile + ":15) after compile";
  std::optional<int64_t> stack;
  for (int floats : {32, 128, 256, 512, 1024}) {
    const results_db::ResultRow& r = rows.at("LOCAL_FLOATS=" + std::to_string(floats));
    bool pruned = floats * 4 > 1024;
    EXPECT_EQ(r.status, pruned ? beast::Status::kPrunedAfterCompile : beast::Status::kOk)
        << floats << ": " << r.error_text;
    EXPECT_EQ(r.error_text, pruned ? violation : "") << floats;
    EXPECT_EQ(r.median_ms.has_value(), !pruned) << floats;  // a pruned kernel never ran
    EXPECT_TRUE(r.compile_ms.has_value()) << floats;
    // What the compiled kernel needs: its local memory exactly, no registers.
    EXPECT_EQ(r.shared_bytes, floats * 4) << floats;
    EXPECT_FALSE(r.registers.has_value()) << floats;
    EXPECT_FALSE(r.spill_bytes.has_value()) << floats;
    ASSERT_TRUE(r.stack_bytes.has_value()) << floats;
    if (stack) EXPECT_EQ(r.stack_bytes, stack) << floats;  // the same code otherwise
    stack = r.stack_bytes;
  }

  // The rerun measures nothing and says the same thing once.
  testing::CommandResult again = Tune("--json");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(CountOccurrences(again.output, not_applied), 1u) << again.output;
  const nlohmann::json pair = testing::JsonOf(again.output)["pairs"][0];
  EXPECT_EQ(pair["measured"], 0) << again.output;
  EXPECT_EQ(pair["skipped"], 5) << again.output;
  EXPECT_EQ(pair["failed"], 0) << again.output;
  std::map<std::string, results_db::ResultRow> after = Rows();
  ASSERT_EQ(after.size(), 5u);
  for (const auto& [key, row] : rows) {
    EXPECT_EQ(after.at(key).measurement_id, row.measurement_id) << key;
    EXPECT_EQ(after.at(key).status, row.status) << key;
  }
}

TEST_F(PostCompileOpenCl, CommandLineConstraintOnAResourceIsPostCompile) {
  testing::CommandResult run = Tune("--constraint \"hard: local_mem_used <= 512\" --ignore-soft");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::map<std::string, results_db::ResultRow> rows = Rows();
  ASSERT_EQ(rows.size(), 5u);
  for (int floats : {32, 128, 256, 512, 1024}) {
    const results_db::ResultRow& r = rows.at("LOCAL_FLOATS=" + std::to_string(floats));
    // The command line's bound comes after the template's in force.
    std::string expected =
        floats * 4 > 1024 ? "violates hard constraint \"local_mem_used <= 1024\" (" + kSpaceFile +
                                ":15) after compile"
        : floats * 4 > 512 ? "violates hard constraint \"local_mem_used <= 512\" (command "
                             "line) after compile"
                           : "";
    EXPECT_EQ(r.status, expected.empty() ? beast::Status::kOk : beast::Status::kPrunedAfterCompile)
        << floats;
    EXPECT_EQ(r.error_text, expected) << floats;
    EXPECT_EQ(r.shared_bytes, floats * 4) << floats;
  }
}

}  // namespace
}  // namespace beast
