// CLBlast baselines and the peak FLOP/s microbenchmark on the machine's first
// OpenCL device (PoCL in CI): CLBlast's SGEMM (all four transpositions, row-
// and column-major) and Convgemm validate against beast's reference on beast's own inputs, what
// Convgemm cannot do (NHWC, a bias) is `unsupported` without a call, grouped
// problems are one Convgemm per image and group, and the peak kernel
// runs. Without CLBlast in the build the CLBlast runs are skipped and every
// problem is unsupported.
#include "harness/opencl/clblast_baseline.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "beast/worker/baseline_measure.hpp"  // private to beast_tuner
#include "beast/worker/problem_data.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_peak_flops.hpp"
#include "support/test_environment.hpp"

namespace beast {
namespace {

// CLBlast's kernels are large: with PoCL's kernel cache cold this test took
// 41 s with them optimized and 12 s without (2026-11-28), and it checks
// their results, not their speed (the peak kernel's GFLOP/s printed here is
// an unoptimized build's too).
const bool kUnoptimizedBuilds = (testing::BuildPoclKernelsUnoptimized(), true);

harness::BenchmarkPlan QuickPlan() {
  harness::BenchmarkPlan plan;
  plan.warmup = 1;
  plan.min_reps = 3;
  plan.max_reps = 5;
  plan.max_seconds = 0.5;
  return plan;
}

harness::BaselineResult RunClblast(harness::OpenClContext& context, const std::string& key) {
  Problem problem = Problem::Parse(key);
  ProblemData data = MakeProblemData(problem);
  DeviceProblem device = UploadProblem(context, data);
  return MeasureBaseline(context, problem, device, kBaselineClblast, QuickPlan());
}

void ExpectOk(const harness::BaselineResult& r, const std::string& routine) {
  EXPECT_EQ(r.status, beast::Status::kOk) << r.error_text;
  EXPECT_EQ(r.routine, routine);
  EXPECT_EQ(r.error_text, "");
  EXPECT_GE(r.samples_ms.size(), 3u);
  EXPECT_LE(r.samples_ms.size(), 5u);
  ASSERT_TRUE(r.median_ms.has_value());
  EXPECT_GT(*r.median_ms, 0.0);
  ASSERT_TRUE(r.max_error.has_value());
  EXPECT_LE(*r.max_error, 2.0);  // harness::kValidationFactor
  ASSERT_TRUE(r.last_command_median_ms.has_value());
  EXPECT_LE(*r.last_command_median_ms, *r.median_ms);
}

TEST(ClblastRoutine, NamesTheRoutineAndWhatItLacks) {
  std::string why;
  EXPECT_EQ(harness::ClblastRoutine(Problem::Parse("gemm:M=8,N=8,K=8,transA=1"), &why), "Sgemm");
  const std::string none =
      harness::ClblastAvailable() ? "" : "this beast was built without CLBlast";
  EXPECT_EQ(why, none);
  EXPECT_EQ(harness::ClblastRoutine(
                Problem::Parse("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,groups=2,layout=NCHW"), &why),
            "Convgemm");
  EXPECT_EQ(why, none);  // one call per image and group
  harness::ClblastRoutine(Problem::Parse("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,layout=NHWC"), &why);
  EXPECT_EQ(why, "CLBlast's Convgemm takes NCHW images only");
  harness::ClblastRoutine(Problem::Parse("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,bias=1"), &why);
  EXPECT_EQ(why, "CLBlast's Convgemm adds no bias");
}

TEST(ClblastBaseline, UnsupportedProblemsAreNotRun) {
  harness::OpenClContext context(0);
  harness::BaselineResult r =
      RunClblast(context, "conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,pad=1,bias=1,layout=NCHW");
  EXPECT_EQ(r.status, beast::Status::kUnsupported);
  EXPECT_EQ(r.routine, "Convgemm");
  EXPECT_EQ(r.error_text, harness::ClblastAvailable() ? "CLBlast's Convgemm adds no bias"
                                                      : "this beast was built without CLBlast");
  EXPECT_TRUE(r.samples_ms.empty());
  EXPECT_FALSE(r.median_ms.has_value());
}

TEST(ClblastBaseline, SgemmValidatesInEveryTranspositionAndOrder) {
  if (!harness::ClblastAvailable()) GTEST_SKIP() << "built without CLBlast";
  harness::OpenClContext context(0);
  for (const char* layout : {"", ",layout=col"}) {
    for (const char* trans :
         {"transA=0,transB=0", "transA=1,transB=0", "transA=0,transB=1", "transA=1,transB=1"}) {
      SCOPED_TRACE(std::string(trans) + layout);
      ExpectOk(RunClblast(context, std::string("gemm:M=37,N=29,K=41,") + trans + layout), "Sgemm");
    }
  }
}

TEST(ClblastBaseline, ConvgemmValidatesWithStridePaddingDilationAndBatch) {
  if (!harness::ClblastAvailable()) GTEST_SKIP() << "built without CLBlast";
  harness::OpenClContext context(0);
  ExpectOk(RunClblast(context, "conv2d:N=2,C=3,H=9,W=8,K=4,R=3,S=3,stride=2,pad=1,layout=NCHW"),
           "Convgemm");
  ExpectOk(RunClblast(context,
                      "conv2d:N=1,C=5,H=11,W=7,K=6,R=3,S=2,pad_h=2,pad_w=1,dilation=2,layout=NCHW"),
           "Convgemm");
}

TEST(ClblastBaseline, ConvgemmValidatesGroupedAndDepthwiseOneCallPerImageAndGroup) {
  if (!harness::ClblastAvailable()) GTEST_SKIP() << "built without CLBlast";
  harness::OpenClContext context(0);
  ExpectOk(RunClblast(context, "conv2d:N=2,C=6,H=9,W=8,K=9,R=3,S=3,pad=1,groups=3,layout=NCHW"),
           "Convgemm");
  ExpectOk(
      RunClblast(context, "conv2d:N=2,C=8,H=7,W=7,K=8,R=3,S=3,stride=2,pad=1,groups=8,layout=NCHW"),
      "Convgemm");
}

TEST(ClblastRoutine, NamesEachDtypesRoutineAndWhyHalfAndBf16AreNotRun) {
  std::string why;
  const std::string none =
      harness::ClblastAvailable() ? "" : "this beast was built without CLBlast";
  EXPECT_EQ(harness::ClblastRoutine(Problem::Parse("gemm:M=8,N=8,K=8,dtype=f64"), &why), "Dgemm");
  EXPECT_EQ(why, none);
  EXPECT_EQ(
      harness::ClblastRoutine(Problem::Parse("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,dtype=f64"), &why),
      "Dconvgemm");
  EXPECT_EQ(why, none);
  EXPECT_EQ(harness::ClblastRoutine(Problem::Parse("gemm:M=8,N=8,K=8,dtype=f16"), &why), "Hgemm");
  EXPECT_EQ(why,
            "CLBlast's half-precision routines accumulate in f16, not in the f32 that beast's f16 "
            "problems are checked against");
  EXPECT_EQ(harness::ClblastRoutine(Problem::Parse("gemm:M=8,N=8,K=8,dtype=bf16"), &why), "Xgemm");
  EXPECT_EQ(why, "CLBlast has no bf16 routines");
}

TEST(ClblastBaseline, DgemmAndDconvgemmValidateAgainstTheDoubleReference) {
  if (!harness::ClblastAvailable()) GTEST_SKIP() << "built without CLBlast";
  harness::OpenClContext context(0);
  if (!context.device().limits.fp64) GTEST_SKIP() << "this OpenCL device has no double precision";
  for (const char* trans : {"transA=0,transB=0", "transA=1,transB=1"}) {
    SCOPED_TRACE(trans);
    harness::BaselineResult r =
        RunClblast(context, std::string("gemm:M=37,N=29,K=41,dtype=f64,") + trans);
    ExpectOk(r, "Dgemm");
    // Within the f64 bound, far tighter than f32's: a float result would
    // be thousands of units of it away.
    EXPECT_LE(*r.max_error, 2.0);
  }
  ExpectOk(RunClblast(context,
                      "conv2d:N=2,C=6,H=9,W=8,K=9,R=3,S=3,pad=1,groups=3,layout=NCHW,dtype=f64"),
           "Dconvgemm");
}

TEST(PeakFlops, KernelHasOneFmaPerChainAndMeasures) {
  std::string source = harness::OpenClPeakKernelSource(12);
  size_t fmas = 0;
  for (size_t at = source.find("= fma("); at != std::string::npos;
       at = source.find("= fma(", at + 1))
    ++fmas;
  EXPECT_EQ(fmas, 12u);
  harness::OpenClContext context(0);
  harness::PeakFlopsResult peak = harness::MeasureOpenClPeakFlops(context, QuickPlan());
  ASSERT_TRUE(peak.ok) << peak.error;
  EXPECT_GT(peak.gflops, 0.0);
  EXPECT_GT(peak.median_ms, 0.0);
  EXPECT_EQ(peak.variant.rfind("chains=", 0), 0u) << peak.variant;
  std::printf("peak %.1f GFLOP/s (%s, median %.3f ms)\n", peak.gflops, peak.variant.c_str(),
              peak.median_ms);
}

TEST(PeakFlops, TheFp64KernelRunsOnDoubleChainsWhereTheDeviceHasThem) {
  const std::string source = harness::OpenClPeakKernelSource(8, /*f64=*/true);
  EXPECT_EQ(source.find("float8"), std::string::npos);
  EXPECT_NE(source.find("#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), std::string::npos);
  harness::OpenClContext context(0);
  harness::PeakFlopsResult peak = harness::MeasureOpenClPeakFlops(context, QuickPlan(), true);
  if (!context.device().limits.fp64) {
    EXPECT_FALSE(peak.ok);
    EXPECT_EQ(peak.error, "the device has no double precision (cl_khr_fp64)");
    return;
  }
  ASSERT_TRUE(peak.ok) << peak.error;
  EXPECT_GT(peak.gflops, 0.0);
  std::printf("fp64 peak %.1f GFLOP/s (%s)\n", peak.gflops, peak.variant.c_str());
}

}  // namespace
}  // namespace beast
