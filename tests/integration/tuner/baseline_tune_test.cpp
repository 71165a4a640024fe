// Baselines in a tuning run on the OpenCL CPU device: `beast tune` measures
// CLBlast once per problem (ok for a GEMM, an NCHW conv and a grouped one,
// `unsupported` for a conv with a bias), records the device's measured peak with it, shows the
// speed-up over CLBlast and the fraction of peak, does not measure a baseline
// twice on a rerun, and measures none with --baselines none.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/opencl/clblast_baseline.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

const char kGemm[] = "gemm:M=24,N=32,K=40,transA=1,dtype=f32";
const char kConv[] = "conv2d:N=1,C=4,H=9,W=7,K=6,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32";
const char kGrouped[] =
    "conv2d:N=1,C=4,H=9,W=7,K=6,R=3,S=3,stride=1,pad=1,groups=2,layout=NCHW,dtype=f32";
const char kBias[] =
    "conv2d:N=1,C=4,H=9,W=7,K=6,R=3,S=3,stride=1,pad=1,bias=1,layout=NCHW,dtype=f32";

class BaselineTune : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("baselines");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Tune(const std::string& extra) const {
    return BeastBinary() + " tune --template gemm/tiled --template conv2d/direct_nchw --problem " +
           kGemm + " --problem " + kConv + " --problem " + kGrouped + " --problem " + kBias +
           " --device opencl:0 --db " + db_ + " --max-configs 2 --max-reps 3 " + extra;
  }
  fs::path dir_;
  std::string db_;
};

TEST_F(BaselineTune, MeasuresEachProblemOnceAndShowsTheSpeedup) {
  if (!harness::ClblastAvailable()) GTEST_SKIP() << "built without CLBlast";
  auto first = RunCommand(Tune("--quiet"), false);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("vs CLBlast  %peak"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("      CLBlast Sgemm "), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("      CLBlast Convgemm "), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("baseline CLBlast Convgemm unsupported: CLBlast's Convgemm adds no "
                              "bias"),
            std::string::npos)
      << first.output;
  EXPECT_NE(first.output.find("%peak: of "), std::string::npos) << first.output;

  std::vector<results_db::BaselineRow> rows;
  {
    results_db::Store store = results_db::Store::OpenExisting(db_);
    rows = store.Baselines();
  }
  ASSERT_EQ(rows.size(), 4u);
  int ok = 0;
  for (const auto& r : rows) {
    EXPECT_EQ(r.library, "clblast");
    EXPECT_EQ(r.library_version, harness::ClblastVersion());
    if (r.problem_key.find("bias=1") != std::string::npos) {
      EXPECT_EQ(r.routine, "Convgemm");
      EXPECT_EQ(r.status, beast::Status::kUnsupported);
      EXPECT_FALSE(r.median_ms.has_value());
      continue;
    }
    ++ok;
    EXPECT_EQ(r.routine, r.problem_key.rfind("gemm:", 0) == 0 ? "Sgemm" : "Convgemm");
    EXPECT_EQ(r.status, beast::Status::kOk) << r.error_text;
    ASSERT_TRUE(r.median_ms.has_value());
    EXPECT_GT(*r.median_ms, 0.0);
    ASSERT_TRUE(r.max_error.has_value());
    EXPECT_LE(*r.max_error, 2.0);
  }
  EXPECT_EQ(ok, 3);

  // The peak went into the device's limits with how it was measured.
  {
    results_db::Store store = results_db::Store::OpenExisting(db_);
    auto winners = store.Winners();
    ASSERT_FALSE(winners.empty());
    const nlohmann::json limits = nlohmann::json::parse(winners[0].limits_json);
    EXPECT_GT(limits.value("peak_gflops_measured", 0.0), 0.0) << winners[0].limits_json;
    EXPECT_EQ(limits.value("peak_method", "").rfind("an OpenCL FMA microbenchmark", 0), 0u)
        << winners[0].limits_json;
  }

  // A rerun takes every baseline from the database.
  auto again = RunCommand(Tune("--quiet --json"), false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const nlohmann::json summary = testing::JsonOf(again.output);
  ASSERT_EQ(summary["baselines"].size(), 4u) << again.output;
  for (const auto& b : summary["baselines"]) EXPECT_EQ(b["from_database"], true) << again.output;
  // The GEMM and the two conv pairs compare with CLBlast; the conv with a bias cannot.
  int with_clblast = 0;
  for (const auto& pair : summary["pairs"]) {
    with_clblast += !pair["baseline"].is_null() && pair["baseline"]["library"] == "clblast";
  }
  EXPECT_EQ(with_clblast, 3) << again.output;
  results_db::Store store = results_db::Store::OpenExisting(db_);
  auto after = store.Baselines();
  ASSERT_EQ(after.size(), 4u);
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].baseline_id, rows[i].baseline_id);
}

TEST_F(BaselineTune, NoneMeasuresNoBaseline) {
  auto r = RunCommand(Tune("--quiet --baselines none"), false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  results_db::Store store = results_db::Store::OpenExisting(db_);
  EXPECT_TRUE(store.Baselines().empty());
  auto bad = RunCommand(Tune("--quiet --baselines mkl"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(
      bad.output.find("beast tune: --baselines must be auto, clblast, nvidia or none, not \"mkl\""),
      std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace beast
