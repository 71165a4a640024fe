// The exported library in every dtype: winners of f64, f16 and bf16 problems
// (gemm/tiled and both direct convolution templates, with bias, groups,
// strides, NHWC and column-major among them) are exported into one library
// that dispatches on the dtype; dtype_consumer/ calls them through the host
// API with double, and uint16_t f16/bf16 buffers, checks every output
// against a CPU reference, and checks that shapes nobody tuned run their
// dtype's generic kernel, correctly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/export_fixture.hpp"

namespace beast {
namespace {

using testing::CountOccurrences;
using testing::RunCommand;

// dtype_consumer/main.c calls these (and untuned neighbours): keep in step.
const std::vector<std::string> kDtypeProblems = {
    "gemm:M=33,N=17,K=29,transA=1,dtype=f64",
    "gemm:M=40,N=24,K=72,transB=1,dtype=f16",
    "gemm:M=40,N=24,K=72,layout=col,dtype=bf16",
    "conv2d:N=2,C=4,H=9,W=7,K=6,R=3,S=3,pad=1,groups=2,bias=1,layout=NCHW,dtype=f64",
    "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,layout=NCHW,dtype=f16",
    "conv2d:N=2,C=8,H=9,W=7,K=6,R=3,S=3,pad=1,bias=1,layout=NHWC,dtype=bf16",
};

class ExportDtypeTest : public testing::ExportFixture {};

TEST_F(ExportDtypeTest, OneLibraryServesEveryDtypeTunedAndUntuned) {
  if (!device_.limits.fp64) GTEST_SKIP() << "the OpenCL device has no double precision";
  for (const std::string& key : kDtypeProblems) {
    const std::vector<Config> configs = Configs(key);
    ASSERT_GE(configs.size(), 2u) << key;
    Record(key, configs.front(), 2.0);
    Record(key, configs[configs.size() / 2], 1.0);
  }
  ExportSummary summary = ExportLibrary(options_);
  ASSERT_EQ(summary.entries.size(), kDtypeProblems.size());
  for (const ExportEntry& e : summary.entries) EXPECT_EQ(e.median_ms, 1.0) << e.problem_key;
  // The two f64 kernels start with the pragma they were tuned with; the
  // generic kernels' source holds it once more (under #ifdef cl_khr_fp64).
  std::ifstream kernels(std::filesystem::path(options_.out_dir) / "src" / "beast_kernels.c");
  const std::string table((std::istreambuf_iterator<char>(kernels)),
                          std::istreambuf_iterator<char>());
  EXPECT_EQ(CountOccurrences(table, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"), 3u);

  testing::CommandResult run = BuildAndRunConsumer("dtype_consumer");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  // Each of the 12 calls: its result and its explanation; then the misuse.
  EXPECT_EQ(CountOccurrences("\n" + run.output, "\nok "), 25u) << run.output;
  EXPECT_EQ(CountOccurrences(run.output, "FAIL"), 0u) << run.output;
  EXPECT_NE(run.output.find("ok bf16 conv2d n=2 c=8 h=9 w=7 k=6 NHWC bias: explain: "
                            "conv2d:N=2,C=8,H=9,W=7,K=6,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,"
                            "pad_w=1,dilation_h=1,dilation_w=1,groups=1,bias=1,layout=NHWC,"
                            "dtype=bf16 -> exact tuned: conv2d/direct_nhwc"),
            std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace beast
