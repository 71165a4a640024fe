// The algorithm as the tuner's choice (issue 20): beast tune without
// --template tunes every template of the problems' ops that computes each
// problem — Winograd on the 3x3 convolution, not on the 1x1 one, which the
// summary names with the constraint that leaves it out — and says which
// template won each problem; --template conv2d/* is the same family by name;
// beast query --fastest gives one row per problem, the fastest template's;
// a template without the device's backend (gemm/mma on PoCL) is named, not
// tuned.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;
using testing::SqlRows;

const char kConv3[] = "conv2d:N=1,C=8,H=10,W=9,K=12,R=3,S=3,pad=1";
const char kConv1[] = "conv2d:N=1,C=8,H=10,W=9,K=12,R=1,S=1";

class AlgorithmChoice : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("algorithm_choice");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  testing::CommandResult Tune(const std::string& templates, const std::string& more,
                              bool merge = false) {
    return RunCommand(BeastBinary() + " tune " + templates + " --problem " + kConv3 +
                          " --problem " + kConv1 +
                          " --max-configs 2 --baselines none --confirm-top 0 --max-reps 3 --db " +
                          db_ + " " + more,
                      merge);
  }
  fs::path dir_;
  std::string db_;
};

TEST_F(AlgorithmChoice, NoTemplateTunesEveryTemplateThatComputesEachProblem) {
  testing::CommandResult run = Tune("", "--json --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = nlohmann::json::parse(run.output);
  std::map<std::string, std::vector<std::string>> tuned;  // problem's R -> templates
  for (const auto& pair : summary["pairs"]) {
    const std::string key = pair["problem"];
    tuned[key.find(",R=3,") != std::string::npos ? "3x3" : "1x1"].push_back(pair["template"]);
  }
  EXPECT_EQ(tuned["3x3"], (std::vector<std::string>{"conv2d/direct_nchw", "conv2d/implicit_gemm",
                                                    "conv2d/winograd", "conv2d/winograd_split"}));
  EXPECT_EQ(tuned["1x1"], (std::vector<std::string>{"conv2d/direct_nchw", "conv2d/implicit_gemm"}));
  // Winograd, fused and split, on the 1x1 one (a hard constraint), the
  // tensor-core conv on both (CUDA only).
  ASSERT_EQ(summary["not_applicable"].size(), 4u) << run.output;
  for (int i = 0; i < 2; ++i) {
    const std::string cuda_only = summary["not_applicable"][i];
    EXPECT_EQ(cuda_only.rfind("conv2d/implicit_gemm_mma on conv2d:N=1,C=8,H=10,W=9,K=12,", 0), 0u)
        << cuda_only;
    EXPECT_EQ(cuda_only.substr(cuda_only.size() - 47),
              ": has no OpenCL form (it renders for CUDA only)")
        << cuda_only;
  }
  for (int i = 2; i < 4; ++i) {
    const std::string left_out = summary["not_applicable"][i];
    EXPECT_EQ(left_out.rfind(std::string(i == 2 ? "conv2d/winograd" : "conv2d/winograd_split") +
                                 " on conv2d:N=1,C=8,H=10,W=9,K=12,R=1,S=1,",
                             0),
              0u)
        << left_out;
    EXPECT_NE(left_out.find("hard constraint \"R == 3 and S == 3\""), std::string::npos)
        << left_out;
  }
  EXPECT_EQ(summary["other_layout"].size(), 2u);  // conv2d/direct_nhwc takes NHWC
  EXPECT_EQ(summary["empty_spaces"].size(), 0u);

  // The same by family, and the text names each problem's fastest template.
  testing::CommandResult family = Tune("--template 'conv2d/*'", "--quiet");
  ASSERT_EQ(family.exit_code, 0) << family.output;
  EXPECT_EQ(testing::CountOccurrences(family.output, "\nfastest on conv2d:"), 2u) << family.output;
  EXPECT_NE(family.output.find("\nnot tuned, not computed: conv2d/winograd on "),
            std::string::npos);
  // Everything was measured by the first run: the family run measured nothing.
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM measurements"), std::vector<std::string>{"12"});

  // beast query --fastest: one row per problem, the lowest median of its
  // templates' best rows.
  testing::CommandResult fastest =
      RunCommand(BeastBinary() + " query --fastest --json --db " + db_, false);
  ASSERT_EQ(fastest.exit_code, 0) << fastest.output;
  const nlohmann::json rows = nlohmann::json::parse(fastest.output);
  ASSERT_EQ(rows.size(), 2u) << fastest.output;
  for (const auto& row : rows) {
    const std::string problem = row["problem"];
    const std::vector<std::string> best = SqlRows(
        db_,
        "SELECT min(m.median_ms) FROM measurements m JOIN problems p ON p.id = m.problem_id "
        "WHERE m.status = 'ok' AND p.key = '" +
            problem + "'");
    EXPECT_DOUBLE_EQ(row["median_ms"].get<double>(), std::stod(best.at(0))) << problem;
  }
}

// The tensor-core gemm/mma has no OpenCL form: without --template an f16
// GEMM on PoCL is tuned with gemm/tiled and the summary names gemm/mma as not
// applicable, saying why; named with --template it is one line, nothing
// written.
TEST_F(AlgorithmChoice, ATemplateWithoutAnOpenCLFormIsNamedNotTunedOnPoCL) {
  const std::string half = "gemm:M=32,N=24,K=16,transA=0,transB=0,dtype=f16";
  testing::CommandResult run =
      RunCommand(BeastBinary() + " tune --problem " + half + " --device opencl:0" +
                     " --max-configs 2 --baselines none --confirm-top 0 --max-reps 3 --quiet" +
                     " --json --db " + db_,
                 false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = nlohmann::json::parse(run.output);
  ASSERT_EQ(summary["pairs"].size(), 1u) << run.output;
  EXPECT_EQ(summary["pairs"][0]["template"], "gemm/tiled");
  EXPECT_EQ(summary["not_applicable"],
            nlohmann::json::array(
                {"gemm/mma on " + half + ": has no OpenCL form (it renders for CUDA only)"}));

  const std::string other_db = (dir_ / "other.db").string();
  testing::CommandResult named =
      RunCommand(BeastBinary() + " tune --template gemm/mma --problem " + half +
                     " --device opencl:0 --max-configs 2 --db " + other_db,
                 true);
  EXPECT_EQ(named.exit_code, 2) << named.output;
  EXPECT_EQ(
      named.output,
      "beast tune: template gemm/mma has no OpenCL form (it renders for CUDA only), problem " +
          half + "\n");
  EXPECT_FALSE(fs::exists(other_db));
}

TEST_F(AlgorithmChoice, AFamilyWithNoTemplateIsOneLine) {
  testing::CommandResult run = Tune("--template 'fft/*'", "--quiet", true);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output, "beast tune: no template of the family fft/*\n");
  EXPECT_FALSE(fs::exists(db_));
}

}  // namespace
}  // namespace beast
