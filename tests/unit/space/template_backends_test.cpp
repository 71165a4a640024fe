// A template says which backends it renders for (`backends:` in its space;
// both when absent) and which dtypes: the tensor-core gemm/mma is CUDA-only
// and takes f16 and bf16. WhyNotApplicable names what a template lacks for a
// problem on a backend, BoundSpace refuses such a pair with that reason,
// and device_cuda_cc is the compute capability a space may require (gemm/mma:
// 8.0). The tensor-core templates say so (`tensor_cores: true`). (An unknown
// backend in a space file: space_loader_test.)
#include <gtest/gtest.h>

#include <string>

#include "beast/core/error.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/space_spec.hpp"

namespace beast {
namespace {

const std::string kTemplates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
const std::string kSpecs = std::string(BEAST_TEST_SOURCE_DIR) + "/constraints";
const char kHalf[] = "gemm:M=64,N=64,K=64,dtype=f16";

TEST(TemplateBackends, WhyNotApplicableNamesWhatTheTemplateLacks) {
  const SpaceSpec mma = SpaceSpec::Load(kTemplates, "gemm/mma");
  const SpaceSpec tiled = SpaceSpec::Load(kTemplates, "gemm/tiled");
  EXPECT_EQ(mma.backends, (std::vector<Backend>{Backend::kCuda}));
  EXPECT_EQ(tiled.backends, (std::vector<Backend>{Backend::kOpenCL, Backend::kCuda}));
  EXPECT_TRUE(mma.tensor_cores);
  EXPECT_TRUE(SpaceSpec::Load(kTemplates, "conv2d/implicit_gemm_mma").tensor_cores);
  EXPECT_FALSE(tiled.tensor_cores);
  const Problem half = Problem::Parse(kHalf);
  EXPECT_EQ(WhyNotApplicable(mma, half, Backend::kCuda), "");
  EXPECT_EQ(WhyNotApplicable(mma, half, Backend::kOpenCL),
            "has no OpenCL form (it renders for CUDA only)");
  EXPECT_EQ(WhyNotApplicable(mma, Problem::Parse("gemm:M=64,N=64,K=64,dtype=f64"), Backend::kCuda),
            "does not support dtype f64 (its dtypes: f16, bf16, f32)");
  EXPECT_EQ(WhyNotApplicable(mma, Problem::Parse("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,dtype=f16"),
                             Backend::kCuda),
            "is a gemm template, the problem is conv2d");
  EXPECT_EQ(WhyNotApplicable(tiled, half, Backend::kOpenCL), "");
  EXPECT_EQ(
      WhyNotApplicable(SpaceSpec::Load(kTemplates, "conv2d/direct_nhwc"),
                       Problem::Parse("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3"), Backend::kOpenCL),
      "does not support layout NCHW");
}

TEST(TemplateBackends, ABoundSpaceOfATemplateWithoutTheDevicesBackendIsRefused) {
  const SpaceSpec mma = SpaceSpec::Load(kTemplates, "gemm/mma");
  DeviceInfo opencl = LoadDeviceSpec(kSpecs, "sm_90");
  opencl.backend = Backend::kOpenCL;
  try {
    BoundSpace space(mma, Problem::Parse(kHalf), opencl);
    FAIL() << "bound gemm/mma to an OpenCL device";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    EXPECT_EQ(std::string(e.what()),
              "template gemm/mma has no OpenCL form (it renders for CUDA only), problem "
              "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f16");
  }
  EXPECT_GT(BoundSpace(mma, Problem::Parse(kHalf), LoadDeviceSpec(kSpecs, "sm_90")).Count(), 0u);
}

TEST(TemplateBackends, TensorCoresNeedComputeCapability80) {
  EXPECT_EQ(LoadDeviceSpec(kSpecs, "sm_90").Variables().at("device_cuda_cc"), 90);
  EXPECT_EQ(LoadDeviceSpec(kSpecs, "sm_86").Variables().at("device_cuda_cc"), 86);
  DeviceInfo opencl = LoadDeviceSpec(kSpecs, "sm_90");
  opencl.backend = Backend::kOpenCL;
  EXPECT_EQ(opencl.Variables().at("device_cuda_cc"), 0);
  const SpaceSpec mma = SpaceSpec::Load(kTemplates, "gemm/mma");
  EXPECT_GT(BoundSpace(mma, Problem::Parse(kHalf), LoadDeviceSpec(kSpecs, "sm_80")).Count(), 0u);
  BoundSpace turing(mma, Problem::Parse(kHalf), LoadDeviceSpec(kSpecs, "sm_75"));
  EXPECT_EQ(turing.Count(), 0u);
  EXPECT_NE(WhyEmpty(turing.Explain()).find("\"device_cuda_cc >= 80\""), std::string::npos)
      << WhyEmpty(turing.Explain());
}

// CUDA launches at most 65535 blocks along y and z: direct_nchw puts
// N * groups * K_TILES blocks along z, so at N = 256 the configs with small
// output-channel tiles are pruned on a CUDA device, not on OpenCL, which has
// no such limit.
TEST(TemplateBackends, CudaGridsHaveAtMost65535BlocksAlongYAndZ) {
  const DeviceInfo cuda = LoadDeviceSpec(kSpecs, "sm_90");
  DeviceInfo opencl = cuda;
  opencl.backend = Backend::kOpenCL;
  EXPECT_EQ(cuda.Variables().at("device_max_groups_1"), 65535);
  EXPECT_EQ(cuda.Variables().at("device_max_groups_2"), 65535);
  EXPECT_EQ(opencl.Variables().at("device_max_groups_2"), 2147483647);
  const SpaceSpec direct = SpaceSpec::Load(kTemplates, "conv2d/direct_nchw");
  const Problem batch256 =
      Problem::Parse("conv2d:N=256,C=512,H=7,W=7,K=512,R=3,S=3,pad_h=1,pad_w=1");
  EXPECT_EQ(BoundSpace(direct, batch256, cuda).Count(), 2052u);
  EXPECT_EQ(BoundSpace(direct, batch256, opencl).Count(), 2084u);
}

// An f32 problem reaches the tensor cores only with math=tf32: exact FP32
// leaves the space empty and says why.
TEST(TemplateBackends, TensorCoresTakeF32OnlyWithMathTf32) {
  const DeviceInfo h100 = LoadDeviceSpec(kSpecs, "sm_90");
  for (const char* name : {"gemm/mma", "conv2d/implicit_gemm_mma"}) {
    const SpaceSpec spec = SpaceSpec::Load(kTemplates, name);
    const std::string shape = spec.op == OpKind::kGemm
                                  ? "gemm:M=64,N=64,K=64"
                                  : "conv2d:N=1,C=16,H=8,W=8,K=16,R=3,S=3,pad=1,layout=NHWC";
    BoundSpace exact(spec, Problem::Parse(shape), h100);
    EXPECT_EQ(exact.Count(), 0u) << name;
    EXPECT_NE(WhyEmpty(exact.Explain()).find("\"dtype_bytes == 2 or tf32 == 1\""),
              std::string::npos)
        << WhyEmpty(exact.Explain());
    EXPECT_GT(BoundSpace(spec, Problem::Parse(shape + ",math=tf32"), h100).Count(), 0u) << name;
  }
}

}  // namespace
}  // namespace beast
