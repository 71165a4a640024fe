// ProgramSupply hands each (template, problem, config) a program of its own:
// the same config of one template on two problems is two jobs, each rendered
// for its problem. (Jobs were once keyed by the config alone, so a run over
// several problems measured every config it had met before on the problem it
// first met it on, and recorded that time, validated there, for the others.)
#include "beast/compile/program_supply.hpp"  // private to beast_tuner

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "beast/core/paths.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

TEST(ProgramSupply, TheSameConfigOnTwoProblemsIsTwoProgramsEachOfItsProblem) {
  std::vector<DeviceInfo> devices = harness::ListOpenClDevices();
  if (devices.empty()) GTEST_SKIP() << "no OpenCL device";
  const std::string templates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  const Paths paths = Paths::Default();
  harness::Renderer renderer(paths.python, paths.render_script, templates);
  const SpaceSpec spec = SpaceSpec::Load(templates, "gemm/tiled");
  const Problem a = Problem::Parse("gemm:M=64,N=64,K=64");
  const Problem b = Problem::Parse("gemm:M=128,N=96,K=32");
  const BoundSpace space_a(spec, a, devices[0]), space_b(spec, b, devices[0]);
  const Config config = space_a.DefaultConfig();
  std::string why;
  ASSERT_TRUE(space_b.Check(config, &why)) << why;  // the one config fits both

  SupplyOptions options;
  options.compile_jobs = 0;  // no pool: each job rendered when taken
  ProgramSupply supply(options, devices[0], renderer, testing::BeastBinary());
  const size_t job_a = supply.Add({&spec, &a, &space_a, config});
  const size_t job_b = supply.Add({&spec, &b, &space_b, config});
  EXPECT_NE(job_a, job_b);
  EXPECT_EQ(supply.Add({&spec, &a, &space_a, config}), job_a);  // the same job again

  std::atomic<bool> stop{false};
  auto taken_a = supply.Take(job_a, stop);
  auto taken_b = supply.Take(job_b, stop);
  ASSERT_TRUE(taken_a && taken_b);
  EXPECT_EQ(taken_a->instance.request.problem_key, a.Key());
  EXPECT_EQ(taken_b->instance.request.problem_key, b.Key());
  EXPECT_NE(taken_a->instance.request.source, taken_b->instance.request.source);
}

}  // namespace
}  // namespace beast
