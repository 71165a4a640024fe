// The shipped templates declare their local / shared memory in the source,
// and CUDA compiles no static __shared__ array over 48 KiB whatever opt-in
// the GPU allows (that is for memory sized at launch). So on a CUDA spec
// table the staging constraints read device_static_local_mem_bytes (48 KiB)
// and the GPU's opt-in limit adds no config; on OpenCL both are the device's
// one limit.
#include <gtest/gtest.h>

#include <string>

#include "beast/core/paths.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/space_spec.hpp"

namespace beast {
namespace {

const std::string kTemplates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";

// The valid configs of `name` for `problem` on `device`, soft constraints off.
uint64_t CountFor(const std::string& name, const std::string& problem, const DeviceInfo& device) {
  BindOptions options;
  options.ignore_soft = true;
  return BoundSpace(SpaceSpec::Load(kTemplates, name), Problem::Parse(problem), device, options)
      .Count();
}

TEST(StaticSharedMemory, CudaSpecTablesCapDeclaredSharedMemoryAt48KiB) {
  DeviceInfo h100 = LoadDeviceSpec(std::string(BEAST_TEST_SOURCE_DIR) + "/constraints", "sm_90");
  EXPECT_EQ(h100.limits.local_mem_bytes, 232448);
  EXPECT_EQ(h100.Variables().at("device_local_mem_bytes"), 232448);
  EXPECT_EQ(h100.Variables().at("device_static_local_mem_bytes"), 49152);
  DeviceInfo capped = h100;
  capped.limits.local_mem_bytes = 49152;
  DeviceInfo opencl = h100;
  opencl.backend = Backend::kOpenCL;
  EXPECT_EQ(opencl.Variables().at("device_static_local_mem_bytes"), 232448);

  const std::string conv =
      "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NHWC,dtype=f32";
  const struct {
    const char* name;
    std::string problem;
  } cases[] = {{"conv2d/direct_nhwc", conv},
               {"conv2d/implicit_gemm", conv},
               {"conv2d/direct_nchw",
                "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32"},
               {"gemm/tiled", "gemm:M=1024,N=1024,K=1024,dtype=f32"}};
  for (const auto& c : cases) {
    const uint64_t on_h100 = CountFor(c.name, c.problem, h100);
    EXPECT_GT(on_h100, 0u) << c.name;
    EXPECT_EQ(on_h100, CountFor(c.name, c.problem, capped)) << c.name;
  }
  // direct_nhwc's largest staged tiles need more than 48 KiB: an OpenCL
  // device with the H100's limit may run them.
  EXPECT_GT(CountFor("conv2d/direct_nhwc", conv, opencl),
            CountFor("conv2d/direct_nhwc", conv, h100));
}

}  // namespace
}  // namespace beast
