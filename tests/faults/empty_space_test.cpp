// Spaces that constraints leave empty (issue 16): the pair is left out with
// the constraints that emptied it and the --ignore-soft hint, the other
// pairs of the run are tuned, the summary lists the empty one and the exit
// code is 3; a run where every space is empty tunes nothing (exit 1); a
// derived value that overflows is named as the cause, not a constraint.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CommandResult;
using testing::FreshTestDir;
using testing::JsonOf;
using testing::RunCommand;
using testing::SqlCount;

// M=N=K=16 leaves gemm/tiled no config its soft constraints allow.
const char kEmpty[] = "gemm:M=16,N=16,K=16,transA=0,transB=0,dtype=f32";
const char kTunable[] = "gemm:M=32,N=24,K=16,transA=0,transB=0,dtype=f32";

class EmptySpaces : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("empty_space"); }
  void TearDown() override { fs::remove_all(dir_); }
  CommandResult Tune(const std::string& problems, const std::string& extra) const {
    return RunCommand(BeastBinary() + " tune --template gemm/tiled " + problems +
                          " --device opencl:0 --db " + (dir_ / "beast.db").string() +
                          " --max-configs 3 --max-reps 3 --baselines none --no-cache "
                          "--compile-jobs 0 --confirm-top 0 --quiet " +
                          extra,
                      false);
  }
  fs::path dir_;
};

TEST_F(EmptySpaces, TheOtherProblemsAreTunedAndTheEmptyOneIsListedWithExit3) {
  const std::string why =
      "gemm/tiled on " + std::string(kEmpty) +
      ": soft constraint \"ceil_div(M, MWG) * ceil_div(N, NWG) >= device_compute_units\" (";
  CommandResult table = Tune(std::string("--problem ") + kEmpty + " --problem " + kTunable, "");
  EXPECT_EQ(table.exit_code, 3) << table.output;
  EXPECT_NE(table.output.find("not tuned, empty space: " + why), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("soft constraints removed configs: --ignore-soft drops the "
                              "template's\n"),
            std::string::npos)
      << table.output;
  const std::string db = (dir_ / "beast.db").string();
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), 3);
  EXPECT_EQ(SqlCount(db, std::string("SELECT count(*) FROM problems WHERE key = '") + kEmpty + "'"),
            0);

  CommandResult json =
      Tune(std::string("--problem ") + kEmpty + " --problem " + kTunable, "--json");
  EXPECT_EQ(json.exit_code, 3);
  const nlohmann::json summary = JsonOf(json.output);
  ASSERT_EQ(summary["empty_spaces"].size(), 1u) << json.output;
  EXPECT_EQ(summary["empty_spaces"][0].get<std::string>().rfind(why, 0), 0u);
  EXPECT_EQ(summary["pairs"].size(), 1u);
}

TEST_F(EmptySpaces, ARunWhereEverySpaceIsEmptyTunesNothing) {
  CommandResult refused = Tune(std::string("--problem ") + kEmpty, "2>&1 >/dev/null");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(
      refused.output.rfind("beast tune: every space is empty, nothing to tune: gemm/tiled on " +
                               std::string(kEmpty) + ": soft constraint ",
                           0),
      0u)
      << refused.output;
  EXPECT_FALSE(fs::exists(dir_ / "beast.db"));
}

TEST_F(EmptySpaces, TheSameProblemTwiceIsTunedOnce) {
  // Two spellings of one problem: the canonical key is the same.
  CommandResult run =
      Tune("--problem gemm:M=32,N=24,K=16 --problem gemm:K=16,N=24,M=32,dtype=f32", "--json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(JsonOf(run.output)["pairs"].size(), 1u);
  EXPECT_EQ(SqlCount((dir_ / "beast.db").string(), "SELECT count(*) FROM measurements"), 3);
}

TEST_F(EmptySpaces, AnOverflowNamesTheDerivedValueThatOverflowed) {
  // N * K * P * Q is 2^64 (each size fits an int, as a problem's must): the
  // derived OUTPUTS cannot be computed, which is what empties the space.
  const std::string problem = "conv2d:N=65536,C=1,H=65536,W=65536,K=65536,R=1,S=1,layout=NCHW";
  CommandResult refused = RunCommand(
      BeastBinary() + " space conv2d/direct_nchw --problem " + problem + " 2>&1 >/dev/null", false);
  EXPECT_EQ(refused.exit_code, 1);
  const std::string space_file =
      std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates/conv2d/direct_nchw.space.yaml";
  // The line that declares OUTPUTS, wherever an edit of the file puts it.
  int line = 0;
  {
    std::ifstream in(space_file);
    std::string text;
    for (int n = 1; std::getline(in, text) && line == 0; ++n)
      if (text.find("- name: OUTPUTS") != std::string::npos) line = n;
  }
  ASSERT_GT(line, 0);
  EXPECT_EQ(refused.output,
            "beast space: the space of conv2d/direct_nchw is empty for "
            "conv2d:N=65536,C=1,H=65536,W=65536,K=65536,R=1,S=1,stride_h=1,stride_w=1,pad_h=0,"
            "pad_w=0,dilation_h=1,dilation_w=1,groups=1,layout=NCHW,dtype=f32: the derived value "
            "OUTPUTS = N * K * P * Q (" +
                space_file + ":" + std::to_string(line) +
                ") cannot be computed for this problem (integer overflow or division by "
                "zero), which removes every config\n");
}

}  // namespace
}  // namespace beast
