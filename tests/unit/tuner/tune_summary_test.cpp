// Tests of the winners table's layout (tune_summary.hpp): a template name
// longer than the column keeps its row in line with the header, on a live
// and on a compile-only summary; what was measured again is said under the
// row.
#include "beast/tuner/tune_summary.hpp"

#include <gtest/gtest.h>

#include <string>

#include "beast/tuner/tune_peak.hpp"

namespace beast {
namespace {

PairSummary Pair(const std::string& name) {
  PairSummary p;
  p.template_name = name;
  p.problem_key = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";
  p.space_size = 10;
  p.measured = 4;
  p.has_best = true;
  p.best_config = "MWG=16";
  p.best_ms = 1.5;
  return p;
}

// The column at which `word` starts on the line of `text` that starts with `line_start`.
size_t ColumnOf(const std::string& text, const std::string& line_start, const std::string& word) {
  const size_t line = text.find("\n" + line_start) + 1;
  return text.find(word, line) - line;
}

TEST(TuneSummaryLayout, ALongTemplateNameKeepsTheColumnsInLine) {
  for (bool compile_only : {false, true}) {
    TuneSummary s;
    s.compile_only = compile_only;
    s.pairs = {Pair("gemm/tiled"), Pair("conv2d/a_template_with_a_long_name")};
    const std::string text = FormatTuneSummary(s);
    const size_t header = ColumnOf(text, "template", "problem");
    EXPECT_EQ(ColumnOf(text, "gemm/tiled", "gemm "), header) << text;
    EXPECT_EQ(ColumnOf(text, "conv2d/a_template_with_a_long_name", "gemm "), header) << text;
  }
}

TEST(TuneSummaryLayout, RetriesAreSaidUnderTheRow) {
  TuneSummary s;
  PairSummary p = Pair("gemm/tiled");
  p.retried = 2;
  p.remeasured = 3;
  p.recovered = 1;
  s.pairs = {p};
  const std::string text = FormatTuneSummary(s);
  EXPECT_NE(text.find("      retried: 2 measured again in a fresh worker after the device "
                      "worker died\n      recorded failures measured again: 3, 1 now ok\n"),
            std::string::npos)
      << text;
}

TEST(TuneSummaryLayout, AMemoryBoundWinnerIsMeasuredAgainstTheBandwidthBound) {
  TuneSummary s;
  s.bandwidth_gbs = 40;
  s.bandwidth_method = "STREAM";
  s.bandwidth_variant = "triad 128 MiB per array";
  PairSummary p = Pair("gemm/tiled");
  p.bandwidth_bound_gflops = 20;
  p.fraction_of_bandwidth_bound = 0.75;
  s.pairs = {p};
  const std::string text = FormatTuneSummary(s);
  EXPECT_NE(text.find("      memory-bound: moving its buffers once at the measured bandwidth "
                      "allows 20.00 GFLOP/s; the winner reaches 75.0% of that\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bandwidth: 40.0 GB/s, measured by STREAM (best: triad 128 MiB per "
                      "array)\n"),
            std::string::npos)
      << text;
}

// A tensor-core winner is not measured against the FMA peak (on an H200 a
// bf16 gemm/mma winner reached 175% of the fp32 peak), but still against the
// memory roof; an FMA one against both, and the footer says which templates
// have no %peak.
TEST(TuneSummaryLayout, ATensorCoreWinnerHasNoPercentOfTheFmaPeak) {
  TuneSummary s;
  s.peak_gflops = 1000;
  s.peak_method = "FMA chains";
  s.peak_variant = "chains=16";
  // 64^3 in f16: 524,288 FLOP over 3 x 8 KiB = 21.3 FLOP/byte, so 1 GB/s
  // bounds it at 21.3 GFLOP/s, below the peak.
  s.bandwidth_gbs = 1;
  const Problem problem = Problem::Parse("gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f16");
  PairSummary fma = Pair("gemm/tiled");
  fma.best_gflops = 500;
  PairSummary mma = Pair("gemm/mma");
  mma.tensor_cores = true;
  mma.best_gflops = 1750;
  PlaceUnderRoof(problem, s, &fma);
  PlaceUnderRoof(problem, s, &mma);
  EXPECT_DOUBLE_EQ(fma.fraction_of_peak, 0.5);
  EXPECT_EQ(mma.fraction_of_peak, 0);
  EXPECT_NEAR(mma.bandwidth_bound_gflops, 524288.0 / (3 * 8192), 1e-9);
  EXPECT_NEAR(mma.fraction_of_bandwidth_bound, 1750 / (524288.0 / (3 * 8192)), 1e-9);
  s.pairs = {fma, mma, mma};
  const std::string text = FormatTuneSummary(s);
  EXPECT_NE(text.find(" 50.0%  MWG=16\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    n/a  MWG=16\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n%peak: n/a for gemm/mma (tensor cores): their roof is the tensor cores' "
                      "rate, not measured in this run\n"),
            std::string::npos)
      << text;
}

// Where the run measured the tensor cores' peak of the problem's mma input
// type, a tensor-core winner is a fraction of that peak, the FMA winner
// still of the FMA peak, and the footer names the tensor cores' peak.
TEST(TuneSummaryLayout, ATensorCoreWinnerIsAFractionOfTheTensorCoresPeakWhereMeasured) {
  TuneSummary s;
  s.peak_gflops = 1000;
  s.peak_method = "FMA chains";
  s.peak_variant = "chains=16";
  s.peak_gflops_tensor[harness::kTensorF16] = 5000;
  s.peak_tensor_variant[harness::kTensorF16] = "chains=8 block=128 blocks=528";
  s.peak_gflops_tensor[harness::kTensorBf16] = 5100;  // no bf16 pair: not in the footer
  const std::string key = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f16";
  const Problem problem = Problem::Parse(key);
  PairSummary fma = Pair("gemm/tiled");
  fma.problem_key = key;
  fma.best_gflops = 500;
  PairSummary mma = Pair("gemm/mma");
  mma.problem_key = key;
  mma.tensor_cores = true;
  mma.best_gflops = 1750;
  PlaceUnderRoof(problem, s, &fma);
  PlaceUnderRoof(problem, s, &mma);
  EXPECT_DOUBLE_EQ(fma.fraction_of_peak, 0.5);
  EXPECT_DOUBLE_EQ(mma.fraction_of_peak, 0.35);
  // An f32 problem without math=tf32 has no mma input type: no fraction.
  PairSummary exact = Pair("gemm/mma");
  exact.tensor_cores = true;
  exact.best_gflops = 1750;
  PlaceUnderRoof(Problem::Parse(exact.problem_key), s, &exact);
  EXPECT_EQ(exact.fraction_of_peak, 0);
  EXPECT_EQ(TensorInputOf(Problem::Parse("gemm:M=64,N=64,K=64,dtype=f32")), -1);
  EXPECT_EQ(TensorInputOf(Problem::Parse("gemm:M=64,N=64,K=64,dtype=f32,math=tf32")),
            harness::kTensorTf32);
  EXPECT_EQ(TensorInputOf(Problem::Parse("gemm:M=64,N=64,K=64,dtype=bf16")), harness::kTensorBf16);
  s.pairs = {fma, mma};
  const std::string text = FormatTuneSummary(s);
  EXPECT_NE(text.find(" 50.0%  MWG=16\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 35.0%  MWG=16\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n%peak of tensor-core templates on f16: of 5000.0 GFLOP/s, the tensor "
                      "cores' (best: chains=8 block=128 blocks=528)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("bf16"), std::string::npos) << text;
  EXPECT_EQ(text.find("%peak: n/a"), std::string::npos) << text;

  // A measurement that failed leaves the pair without a fraction, and the
  // footer says why (a type the run did not ask for says nothing).
  s.peak_gflops_tensor[harness::kTensorF16] = 0;
  s.peak_tensor_error[harness::kTensorF16] = "chains=4 block=128 blocks=528: launch failed";
  s.peak_tensor_error[harness::kTensorTf32] = "not measured: the run has no tensor-core pair";
  const std::string failed = FormatTuneSummary(s);
  EXPECT_NE(failed.find("\n%peak: n/a for gemm/mma (tensor cores): their roof is the tensor "
                        "cores' rate, not measured in this run; f16: chains=4 block=128 "
                        "blocks=528: launch failed\n"),
            std::string::npos)
      << failed;
}

// An interrupted job: A was tuned (1 ms, weight 2), B's pair was planned
// and never reached, C is one no template computes (no pair planned). B is
// "not reached", not a problem without a winner, and neither is in the
// sums; C has no winner.
TEST(JobTotals, AnInterruptedJobsProblemsNotReachedAreNotCalledWinnerless) {
  TuneSummary s;
  s.job = true;
  s.interrupted = true;
  s.weights = {{"gemm:A", 2}, {"gemm:B", 3}, {"conv2d:C", 1}};
  PairSummary a;
  a.problem_key = "gemm:A";
  a.has_best = true;
  a.best_ms = 1.0;
  s.pairs.push_back(a);
  s.planned_problems = {"gemm:A", "gemm:B"};
  JobTotals t = JobTotalsOf(s);
  EXPECT_EQ(t.problems, 3);
  EXPECT_EQ(t.layers, 6);
  EXPECT_DOUBLE_EQ(t.weighted_best_ms, 2.0);
  EXPECT_EQ(t.no_winner, std::vector<std::string>{"conv2d:C"});
  EXPECT_EQ(t.not_reached, std::vector<std::string>{"gemm:B"});
  s.interrupted = false;  // a run that ended: B had no winner
  EXPECT_EQ(JobTotalsOf(s).no_winner, (std::vector<std::string>{"conv2d:C", "gemm:B"}));
}

}  // namespace
}  // namespace beast
