// The gate kernel of CUDA timings (harness/cuda_gate.hpp) compiles with NVRTC
// for the architectures beast tunes, without a GPU: a GPU run builds it the
// same way for its own architecture. Skipped without NVRTC.
#include "harness/cuda/cuda_gate.hpp"

#include <gtest/gtest.h>

#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast::harness {
namespace {

TEST(CudaGate, CompilesForEveryTunedArchitecture) {
  if (!NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  for (const char* arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    CudaCompileResult r = CompileCuda(CudaGateKernelSource(), arch, "beast_gate");
    ASSERT_TRUE(r.ok) << arch << ": " << r.log;
    EXPECT_EQ(r.cubin.substr(1, 3), "ELF") << arch;
    // One thread spinning on a timer: no shared memory, no spills.
    EXPECT_EQ(r.resources.shared_bytes, 0) << arch;
    EXPECT_EQ(r.resources.spill_store_bytes, 0) << arch;
    EXPECT_GT(r.resources.registers, 0) << arch;
  }
}

}  // namespace
}  // namespace beast::harness
