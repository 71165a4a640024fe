// The CUDA rendering of every template compiles with NVRTC for sm_80 and
// sm_90 (no GPU needed), and ptxas's resource report is parsed exactly.
#include <gtest/gtest.h>

#include "beast/bound_space.hpp"
#include "beast/device_spec_table.hpp"
#include "beast/paths.hpp"
#include "beast/template_vars.hpp"
#include "harness/nvrtc_compiler.hpp"
#include "harness/renderer.hpp"

namespace beast {
namespace {

TEST(PtxasInfo, ParsesTheNamedKernelOnly) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Function properties for other\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 99 registers, used 0 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'gemm_tiled' for 'sm_90'\n"
      "ptxas info    : Function properties for gemm_tiled\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 64 registers, used 1 barriers, 8192 bytes smem, 380 bytes cmem[0]\n";
  harness::CudaResources r = harness::ParsePtxasInfo(log, "gemm_tiled");
  EXPECT_EQ(r.registers, 64);
  EXPECT_EQ(r.stack_bytes, 16);
  EXPECT_EQ(r.spill_store_bytes, 8);
  EXPECT_EQ(r.spill_load_bytes, 12);
  EXPECT_EQ(r.shared_bytes, 8192);
  EXPECT_EQ(harness::ParsePtxasInfo(log, "absent").registers, -1);
}

struct TemplateCase {
  std::string name;
  std::string problem;
};

TEST(CudaCompile, EveryTemplateCompilesForSm80AndSm90) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  Paths paths = Paths::Default();
  const std::string templates_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  harness::Renderer renderer(paths.python, std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render.py", templates_dir);
  std::vector<std::string> names = SpaceSpec::List(templates_dir);
  ASSERT_FALSE(names.empty());
  int compiled = 0;
  for (const auto& name : names) {
    SpaceSpec spec = SpaceSpec::Load(templates_dir, name);
    // A conv2d template gets the first layout it lists (direct_nhwc serves NHWC only).
    Problem problem = Problem::Parse(spec.op == OpKind::kGemm
                                         ? "gemm:M=512,N=512,K=512"
                                         : std::string("conv2d:N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=") +
                                               LayoutName(spec.layouts.at(0)));
    for (const char* arch : {"sm_80", "sm_90"}) {
      DeviceInfo device = LoadDeviceSpec(std::string(BEAST_TEST_SOURCE_DIR) + "/constraints", arch);
      BoundSpace space(spec, problem, device);
      // The default and a few configs spread over the space.
      std::vector<Config> configs = {space.DefaultConfig()};
      std::vector<Config> all = space.Enumerate(4000);
      for (size_t i = 0; i < all.size(); i += all.size() / 3 + 1) configs.push_back(all[i]);
      for (const Config& config : configs) {
        Instance instance = space.Instantiate(config);
        std::string source = renderer.Render(spec.source_rel, TemplateVarsJson(spec, problem, instance, Backend::kCuda));
        harness::CudaCompileResult r = harness::CompileCuda(source, arch, spec.kernel_name);
        EXPECT_TRUE(r.ok) << name << " " << config.Key() << " " << arch << "\n" << r.log;
        EXPECT_GT(r.resources.registers, 0) << name << " " << config.Key() << "\n" << r.log;
        EXPECT_FALSE(r.cubin.empty());
        ++compiled;
      }
    }
  }
  EXPECT_GE(compiled, 2 * 2 * 2);
}

}  // namespace
}  // namespace beast
