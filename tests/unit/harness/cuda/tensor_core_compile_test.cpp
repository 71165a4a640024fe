// The tensor-core templates compile with NVRTC for sm_80 and sm_90 without
// a GPU: the default config of gemm/mma (on every transposition row- and
// column-major) and of conv2d/implicit_gemm_mma (NHWC and NCHW; plain,
// grouped-strided-dilated with bias, 1x1), in f16, bf16 and f32 with
// math=tf32 (TF32 products), compiles with no
// spills and no stack frame (ptxas's report); under the CTest label `sweep`,
// a seeded sample of 200 configs of each space per arch compiles whole (the
// default suite compiles cuda_compile_test's flag cover instead). What they
// compute is checked on a CPU model of the warp instructions
// (tests/tensor_core_emulator/); on silicon, and how fast, by tests/gpu/.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/paths.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/template_vars.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/render/renderer.hpp"
#include "support/cuda_compile_jobs.hpp"

namespace beast {
namespace {

const std::string& kTemplatesDir = testing::kSourceTemplatesDir;
const char* const kArchs[] = {"sm_80", "sm_90"};
constexpr uint64_t kSample = 200;  // per arch, under the label sweep only

using Job = testing::CudaJob;
using testing::CompileAll;

class TensorCoreCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  }
  static DeviceInfo Arch(const std::string& arch) {
    return LoadDeviceSpec(std::string(BEAST_TEST_SOURCE_DIR) + "/constraints", arch);
  }
  Job Render(const SpaceSpec& spec, const BoundSpace& space, const Problem& problem,
             const Config& config, const std::string& arch) {
    return testing::RenderCudaJob(renderer_, spec, space, problem, config, arch);
  }
  // A seeded sample of the space a tuning run samples (soft constraints
  // applied) of each (problem, seed), kSample configs per arch in all, split
  // evenly over the problems, compiled for sm_80 and sm_90: every one
  // compiles.
  void CompileSample(const std::string& name,
                     const std::vector<std::pair<std::string, uint64_t>>& problems) {
    const SpaceSpec spec = SpaceSpec::Load(kTemplatesDir, name);
    std::vector<Job> jobs;
    for (const char* arch : kArchs) {
      for (size_t i = 0; i < problems.size(); ++i) {
        const Problem problem = Problem::Parse(problems[i].first);
        const BoundSpace space(spec, problem, Arch(arch));
        const uint64_t share = kSample / problems.size() + (i < kSample % problems.size());
        for (const Config& c : space.Sample(share, problems[i].second))
          jobs.push_back(Render(spec, space, problem, c, arch));
      }
    }
    ASSERT_EQ(jobs.size(), 2 * kSample);
    CompileAll(&jobs);
    int compiled = 0;
    for (const Job& job : jobs) {
      EXPECT_TRUE(job.result.ok) << job.what << "\n" << job.result.log;
      EXPECT_FALSE(job.result.cubin.empty()) << job.what;
      compiled += job.result.ok;
    }
    EXPECT_EQ(compiled, static_cast<int>(2 * kSample));
    std::printf("%d %s configs compiled for sm_80 and sm_90\n", compiled, name.c_str());
  }

  harness::Renderer renderer_ = testing::SourceTemplateRenderer();
};

TEST_F(TensorCoreCompile, TheGemmDefaultCompilesWithoutSpillsOnEveryPath) {
  const SpaceSpec spec = SpaceSpec::Load(kTemplatesDir, "gemm/mma");
  std::vector<Job> jobs;
  for (const char* dtype : {"f16", "bf16", "f32,math=tf32"}) {
    for (int t = 0; t < 8; ++t) {
      // Odd-sized in every dimension but the copies' (a multiple of 8): the
      // tails of M, N and K are zero-filled copies and skipped stores.
      const Problem problem =
          Problem::Parse("gemm:M=200,N=136,K=72,transA=" + std::to_string(t & 1) +
                         ",transB=" + std::to_string((t >> 1) & 1) + (t & 4 ? ",layout=col" : "") +
                         ",dtype=" + dtype);
      for (const char* arch : kArchs) {
        BoundSpace space(spec, problem, Arch(arch));
        const Config config = space.DefaultConfig();
        std::string why;
        ASSERT_TRUE(space.Check(config, &why, /*hard_only=*/true)) << problem.Key() << ": " << why;
        jobs.push_back(Render(spec, space, problem, config, arch));
      }
    }
  }
  CompileAll(&jobs);
  for (const Job& job : jobs) {
    ASSERT_TRUE(job.result.ok) << job.what << "\n" << job.result.log;
    EXPECT_GT(job.result.resources.registers, 0) << job.what;
    EXPECT_LE(job.result.resources.registers, 255) << job.what;
    EXPECT_EQ(job.result.resources.spill_store_bytes + job.result.resources.spill_load_bytes, 0)
        << job.what << "\n"
        << job.result.log;
    EXPECT_EQ(job.result.resources.stack_bytes, 0) << job.what << "\n" << job.result.log;
  }
  EXPECT_EQ(jobs.size(), 3u * 8u * 2u);
}

// Conv problems that take every path of the tensor-core conv: a plain 3x3
// (ResNet-50's), a grouped, dilated and strided one with bias and tails in
// every GEMM dimension, a 1x1 whose reduction is one stage.
const char* const kConvProblems[] = {
    "conv2d:N=32,C=64,H=56,W=56,K=64,R=3,S=3,pad=1",
    "conv2d:N=3,C=64,H=29,W=27,K=96,R=3,S=3,stride=2,pad=2,dilation=2,groups=4,bias=1",
    "conv2d:N=2,C=24,H=7,W=9,K=40,R=1,S=1",
};

TEST_F(TensorCoreCompile, TheConvDefaultCompilesWithoutSpillsOnEveryPath) {
  const SpaceSpec spec = SpaceSpec::Load(kTemplatesDir, "conv2d/implicit_gemm_mma");
  std::vector<Job> jobs;
  for (const char* dtype : {"f16", "bf16", "f32,math=tf32"}) {
    for (const char* layout : {"NHWC", "NCHW"}) {
      for (const char* text : kConvProblems) {
        const Problem problem =
            Problem::Parse(std::string(text) + ",layout=" + layout + ",dtype=" + dtype);
        for (const char* arch : kArchs) {
          BoundSpace space(spec, problem, Arch(arch));
          const Config config = space.DefaultConfig();
          std::string why;
          ASSERT_TRUE(space.Check(config, &why, /*hard_only=*/true))
              << problem.Key() << ": " << why;
          jobs.push_back(Render(spec, space, problem, config, arch));
        }
      }
    }
  }
  CompileAll(&jobs);
  for (const Job& job : jobs) {
    ASSERT_TRUE(job.result.ok) << job.what << "\n" << job.result.log;
    EXPECT_GT(job.result.resources.registers, 0) << job.what;
    EXPECT_EQ(job.result.resources.spill_store_bytes + job.result.resources.spill_load_bytes, 0)
        << job.what << "\n"
        << job.result.log;
    EXPECT_EQ(job.result.resources.stack_bytes, 0) << job.what << "\n" << job.result.log;
  }
  EXPECT_EQ(jobs.size(), 3u * 2u * 3u * 2u);
}

// The depthwise convolution (one channel per group) is no tensor-core GEMM:
// its space is empty, and says why.
TEST_F(TensorCoreCompile, TheConvTakesNoDepthwiseProblem) {
  const SpaceSpec spec = SpaceSpec::Load(kTemplatesDir, "conv2d/implicit_gemm_mma");
  BoundSpace space(
      spec,
      Problem::Parse("conv2d:N=8,C=96,H=28,W=28,K=96,R=3,S=3,pad=1,groups=96,dtype=f16,"
                     "layout=NHWC"),
      Arch("sm_90"));
  EXPECT_EQ(space.Count(), 0u);
  EXPECT_NE(WhyEmpty(space.Explain()).find("\"CG % VEC == 0\""), std::string::npos)
      << WhyEmpty(space.Explain());
}

#ifdef BEAST_FULL_SWEEP  // the flag cover of cuda_compile_test runs in the default suite
TEST_F(TensorCoreCompile, ASampleOfTheGemmSpaceCompilesForSm80AndSm90) {
  CompileSample("gemm/mma", {{"gemm:M=4096,N=4096,K=4096,dtype=f16", 7},
                             {"gemm:M=4096,N=4096,K=4096,transB=1,dtype=bf16", 11},
                             {"gemm:M=4096,N=4096,K=4096,transA=1,math=tf32", 5}});
}
#endif

#ifdef BEAST_FULL_SWEEP  // the flag cover of cuda_compile_test runs in the default suite
TEST_F(TensorCoreCompile, ASampleOfTheConvSpaceCompilesForSm80AndSm90) {
  CompileSample("conv2d/implicit_gemm_mma",
                {{"conv2d:N=32,C=128,H=28,W=28,K=128,R=3,S=3,pad=1,layout=NHWC,dtype=f16", 13},
                 {"conv2d:N=32,C=128,H=28,W=28,K=128,R=3,S=3,pad=1,layout=NCHW,dtype=bf16", 17},
                 {"conv2d:N=32,C=128,H=28,W=28,K=128,R=3,S=3,pad=1,layout=NHWC,math=tf32", 19}});
}
#endif

}  // namespace
}  // namespace beast
