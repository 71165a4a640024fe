// CUDA pieces that need no GPU: NVRTC builds through the program cache (a
// build is stored once and loaded after with the same cubin and resources, a
// rejected source's log is stored too, a failure of another kind is not), the CUDA peak
// microbenchmark's source compiles for sm_80 and sm_90 without spilling, and the cuBLAS / cuDNN
// baselines' libraries are found and name their versions when the CUDA
// toolkit is installed. Skipped, saying why, without NVRTC.
#include "harness/cuda/cuda_build.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "harness/cuda/cuda_library_call.hpp"
#include "harness/cuda/cuda_peak_flops.hpp"
#include "harness/cuda/cuda_tensor_peak.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "support/test_dir.hpp"

namespace beast::harness {
namespace {

namespace fs = std::filesystem;

const char kSaxpy[] =
    "extern \"C\" __global__ void saxpy(const float* x, float* y, float a) {\n"
    "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";

class CudaBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NvrtcAvailable()) GTEST_SKIP() << "this beast has no NVRTC";
    dir_ = testing::FreshTestDir("cuda_build");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CudaBuildTest, ABuildIsStoredOnceAndLoadedWithItsResources) {
  ProgramCache cache(dir_.string());
  CudaBuild first = BuildCudaThroughCache(&cache, kSaxpy, "sm_80", "saxpy");
  ASSERT_TRUE(first.compiled.ok) << first.compiled.log;
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(first.stored);
  EXPECT_GT(first.compiled.resources.registers, 0);
  CudaBuild second = BuildCudaThroughCache(&cache, kSaxpy, "sm_80", "saxpy");
  EXPECT_TRUE(second.from_cache);
  EXPECT_FALSE(second.stored);
  EXPECT_EQ(second.compiled.cubin, first.compiled.cubin);
  EXPECT_EQ(second.compiled.compile_ms, first.compiled.compile_ms);
  EXPECT_EQ(second.compiled.resources.registers, first.compiled.resources.registers);
  EXPECT_EQ(second.compiled.resources.stack_bytes, first.compiled.resources.stack_bytes);
  // Another architecture is another program.
  CudaBuild hopper = BuildCudaThroughCache(&cache, kSaxpy, "sm_90", "saxpy");
  EXPECT_FALSE(hopper.from_cache);
  EXPECT_NE(hopper.compiled.cubin, first.compiled.cubin);
  // Without a cache nothing is stored or loaded.
  CudaBuild uncached = BuildCudaThroughCache(nullptr, kSaxpy, "sm_80", "saxpy");
  EXPECT_TRUE(uncached.compiled.ok);
  EXPECT_FALSE(uncached.from_cache);
  EXPECT_FALSE(uncached.stored);
}

TEST_F(CudaBuildTest, ARejectedSourceIsStoredWithItsLog) {
  ProgramCache cache(dir_.string());
  const std::string bad = "extern \"C\" __global__ void k(float* y) { y[0] = no_such_name; }\n";
  CudaBuild first = BuildCudaThroughCache(&cache, bad, "sm_90", "k");
  EXPECT_FALSE(first.compiled.ok);
  EXPECT_TRUE(first.stored);
  CudaBuild second = BuildCudaThroughCache(&cache, bad, "sm_90", "k");
  EXPECT_TRUE(second.from_cache);
  EXPECT_FALSE(second.compiled.ok);
  EXPECT_EQ(second.compiled.log, first.compiled.log);
  EXPECT_NE(second.compiled.log.find("no_such_name"), std::string::npos) << second.compiled.log;
}

// A build that failed for another reason than the source (here an option
// NVRTC refuses; in a run, NVRTC out of memory) is not kept: the next build
// compiles again instead of reading the failure back for good.
TEST_F(CudaBuildTest, AFailureThatIsNotTheSourcesIsNotStored) {
  ProgramCache cache(dir_.string());
  CudaBuild first = BuildCudaThroughCache(&cache, kSaxpy, "sm_1", "saxpy");
  EXPECT_FALSE(first.compiled.ok);
  EXPECT_FALSE(first.compiled.rejected);
  EXPECT_NE(first.compiled.log.find("NVRTC_ERROR_INVALID_OPTION"), std::string::npos)
      << first.compiled.log;
  EXPECT_FALSE(first.stored);
  CudaBuild second = BuildCudaThroughCache(&cache, kSaxpy, "sm_1", "saxpy");
  EXPECT_FALSE(second.from_cache);
}

TEST_F(CudaBuildTest, ThePeakKernelCompilesForAmpereAndHopperWithoutSpills) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    for (int chains : {4, 8, 16}) {
      CudaCompileResult r = CompileCuda(CudaPeakKernelSource(chains), arch, "beast_peak_fma");
      ASSERT_TRUE(r.ok) << arch << " " << chains << ": " << r.log;
      EXPECT_GE(r.resources.registers, chains) << arch << " " << chains;
      EXPECT_EQ(r.resources.spill_store_bytes + r.resources.spill_load_bytes, 0)
          << arch << " " << chains;
    }
  }
}

// The tensor cores' peak kernel: every mma input type compiles for Ampere
// and Hopper, its accumulators in registers (4 per chain), and its loop
// issues the mma the templates issue (m16n8k16, or m16n8k8 for TF32).
TEST_F(CudaBuildTest, TheTensorPeakKernelCompilesForAmpereAndHopperWithoutSpills) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    for (TensorInput input : {kTensorF16, kTensorBf16, kTensorTf32}) {
      for (int chains : {4, 8}) {
        const std::string source = CudaTensorPeakKernelSource(input, chains);
        const std::string what =
            std::string(arch) + " " + TensorInputName(input) + " " + std::to_string(chains);
        EXPECT_NE(
            source.find(input == kTensorTf32
                            ? "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
                            : std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                                  TensorInputName(input) + "." + TensorInputName(input) + ".f32"),
            std::string::npos)
            << what;
        CudaCompileResult r = CompileCuda(source, arch, "beast_peak_mma");
        ASSERT_TRUE(r.ok) << what << ": " << r.log;
        EXPECT_GE(r.resources.registers, 4 * chains) << what;
        EXPECT_EQ(r.resources.spill_store_bytes + r.resources.spill_load_bytes, 0) << what;
      }
    }
  }
  EXPECT_EQ(CudaTensorMmaFlops(kTensorF16), 4096.0);
  EXPECT_EQ(CudaTensorMmaFlops(kTensorBf16), 4096.0);
  EXPECT_EQ(CudaTensorMmaFlops(kTensorTf32), 2048.0);
}

TEST_F(CudaBuildTest, TheBaselineLibrariesNameTheirVersions) {
  const bool toolkit = fs::exists("/usr/local/cuda/lib64/libcublas.so");
  if (!toolkit) GTEST_SKIP() << "no CUDA toolkit libraries under /usr/local/cuda/lib64";
  EXPECT_TRUE(std::regex_match(CublasVersion(), std::regex("[0-9]+"))) << CublasVersion();
  if (fs::exists("/usr/local/cuda/lib64/libcudnn.so"))
    EXPECT_TRUE(std::regex_match(CudnnVersion(), std::regex("[89]\\.[0-9]+\\.[0-9]+")))
        << CudnnVersion();
}

}  // namespace
}  // namespace beast::harness
