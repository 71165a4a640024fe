// Tuning in f64 on PoCL, end to end (issue 17): every template renders
// double, the worker uploads doubles and checks the result against the
// reference kept in double (u = 2^-53), the key and the database say f64,
// the f64 winner's %peak is of the fp64 peak, CLBlast's Dgemm is its
// baseline. f16 and bf16 are storage types summed in float. (The export of
// every dtype: tests/integration/export/export_dtype_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
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

class DtypeTune : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("dtype_tune"); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DtypeTune, F64GemmAndConvolutionsFindOkWinners) {
  const std::string db = (dir_ / "beast.db").string();
  const std::string gemm = "gemm:M=40,N=24,K=72,transA=0,transB=0,dtype=f64";
  CommandResult run = RunCommand(
      BeastBinary() +
          " tune --template gemm/tiled --template conv2d/direct_nchw --template "
          "conv2d/implicit_gemm --problem " +
          gemm +
          " --problem conv2d:N=1,C=8,H=10,W=10,K=12,R=3,S=3,pad=1,bias=1,dtype=f64 --device "
          "opencl:0 --db " +
          db +
          " --max-configs 4 --max-reps 3 --baselines clblast --compile-jobs 0 "
          "--confirm-top 0 --quiet --json",
      false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = JsonOf(run.output);
  ASSERT_EQ(summary["pairs"].size(), 3u) << run.output;
  for (const auto& pair : summary["pairs"]) {
    EXPECT_EQ(pair["failed"], 0) << pair.dump();
    EXPECT_FALSE(pair["best"].is_null()) << pair.dump();
    // Against the fp64 peak, measured beside the fp32 one (PoCL has double).
    ASSERT_TRUE(pair["fraction_of_peak"].is_number()) << pair.dump();
    EXPECT_GT(pair["fraction_of_peak"].get<double>(), 0) << pair.dump();
    EXPECT_NE(pair["problem"].get<std::string>().find(",dtype=f64"), std::string::npos);
  }
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 12);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM problems WHERE key LIKE '%,dtype=f64'"), 2);
  // CLBlast's Dgemm is the f64 GEMM's baseline; Dconvgemm adds no bias.
  EXPECT_EQ(
      SqlCount(db, "SELECT count(*) FROM baselines WHERE status = 'ok' AND routine = 'Dgemm'"), 1);
  EXPECT_EQ(SqlCount(db,
                     "SELECT count(*) FROM baselines WHERE status = 'unsupported' AND routine = "
                     "'Dconvgemm' AND error_text = 'CLBlast''s Convgemm adds no bias'"),
            1);
  EXPECT_EQ(summary["pairs"][0]["baseline"]["routine"], "Dgemm") << summary["pairs"][0].dump();
  EXPECT_GT(summary["pairs"][0]["baseline"]["speedup"].get<double>(), 0) << run.output;
  EXPECT_GT(summary["peak"]["gflops_f64"].get<double>(), 0) << run.output;
}

TEST_F(DtypeTune, F16AndBf16StorageFindOkWinnersThatAccumulateInFloat) {
  // f16 and bf16 are storage types: the buffers hold 16-bit elements (the
  // device reads f16 through vload_half, bf16 through shifts), the kernels
  // sum in float, and the result is checked against the reference of the
  // rounded inputs within one rounding of the stored type.
  const std::string db = (dir_ / "beast.db").string();
  std::string problems;
  for (const char* dtype : {"f16", "bf16"}) {
    problems +=
        std::string(" --problem gemm:M=40,N=24,K=72,transA=0,transB=1,dtype=") + dtype +
        " --problem conv2d:N=1,C=8,H=10,W=10,K=12,R=3,S=3,pad=1,bias=1,layout=NHWC,dtype=" + dtype;
  }
  CommandResult run =
      RunCommand(BeastBinary() + " tune --template gemm/tiled --template conv2d/implicit_gemm" +
                     problems + " --device opencl:0 --db " + db +
                     " --max-configs 4 --max-reps 3 --baselines clblast "
                     "--compile-jobs 0 --confirm-top 0 --quiet --json",
                 false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = JsonOf(run.output);
  ASSERT_EQ(summary["pairs"].size(), 4u) << run.output;
  for (const auto& pair : summary["pairs"]) {
    EXPECT_EQ(pair["failed"], 0) << pair.dump();
    EXPECT_FALSE(pair["best"].is_null()) << pair.dump();
  }
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 16);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM problems WHERE key LIKE '%,dtype=f16'"), 2);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM problems WHERE key LIKE '%,dtype=bf16'"), 2);
  // CLBlast's half routines sum in half; it has no bf16 ones.
  EXPECT_EQ(SqlCount(db,
                     "SELECT count(*) FROM baselines WHERE status = 'unsupported' AND error_text "
                     "LIKE 'CLBlast''s half-precision routines accumulate in f16%'"),
            2);
  EXPECT_EQ(SqlCount(db,
                     "SELECT count(*) FROM baselines WHERE status = 'unsupported' AND error_text = "
                     "'CLBlast has no bf16 routines'"),
            2);
}

}  // namespace
}  // namespace beast
