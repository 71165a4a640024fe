// `beast tune --device cuda:N` on a machine without a CUDA GPU (this one:
// no libcuda.so.1): one line saying why, exit 1, nothing written; with the
// compile-only form cuda:sm_XX the test templates' CUDA renderings (the
// faulty and the launch-time ones the GPU tests run) compile with NVRTC.
// Skipped where a GPU is present (tests/gpu covers that machine).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "harness/cuda/cuda_driver.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;

const std::string kTestTemplates =
    std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/kernel_templates";

class CudaDeviceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("cuda_cli");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string db_;
};

TEST_F(CudaDeviceCli, WithoutAGpuTuningOnCudaIsOneLineAndWritesNothing) {
  harness::CudaProbe probe = harness::ProbeCuda();
  if (!probe.devices.empty()) GTEST_SKIP() << "a CUDA GPU is present";
  auto r = RunCommand(
      BeastBinary() +
          " tune --device cuda:0 --template gemm/tiled --problem gemm:M=8,N=8,K=8 --db " + db_ +
          " 2>&1 >/dev/null",
      false);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(CountOccurrences(r.output, "\n"), 1u) << r.output;
  const std::string expected =
      probe.driver_loaded ? "beast tune: no device cuda:0 (" : "beast tune: cuda:0: no CUDA driver";
  EXPECT_EQ(r.output.rfind(expected, 0), 0u) << r.output;
  EXPECT_FALSE(fs::exists(db_));
}

// Every config compiles; --patience, which counts configs without a faster
// time, does not end a compile-only run, which has no times (it stopped
// each template after 2).
TEST_F(CudaDeviceCli, TheTestTemplatesCudaRenderingsCompile) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this beast has no NVRTC";
  auto r = RunCommand(
      BeastBinary() + " tune --device cuda:sm_90 --templates " + kTestTemplates +
      " --template test/faulty --template test/launch_params --problem gemm:M=9,N=13,K=37 --db " +
      db_ + " --patience 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::map<std::string, int> statuses;
  for (const auto& row : store.Query({}))
    ++statuses[row.template_name + " " + beast::StatusName(row.status)];
  EXPECT_EQ(statuses, (std::map<std::string, int>{{"test/faulty compiled", 4},
                                                  {"test/launch_params compiled", 10}}));
}

}  // namespace
}  // namespace beast
