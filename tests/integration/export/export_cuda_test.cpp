// beast export with CUDA winners, on a machine without a GPU: a database
// holding the same GEMM tuned on the PoCL device and on an H100 (recorded as
// a CUDA run would record it) exports both — the CUDA entry as NVRTC's cubin
// for sm_90 plus the PTX of compute_90, and the generic kernels' PTX for the
// oldest architecture NVRTC knows — and the library builds; a consumer then
// finds a CUDA context refused in one line (no driver here) and the OpenCL
// context served by the OpenCL entry only. Skipped without NVRTC.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "beast/core/paths.hpp"
#include "beast/export/exporter.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "beast/space/bound_space.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/record_measurement.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::RunCommand;

const char kGemm[] = "gemm:M=256,N=192,K=128,dtype=f32";

class ExportCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this beast has no NVRTC";
    dir_ = testing::FreshTestDir("export_cuda");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Records `device`'s valid gemm/tiled config number `index` for kGemm as
  // ok at `ms`; returns its key.
  std::string RecordWinner(const DeviceInfo& device, double ms, size_t index = 0) {
    const std::string templates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
    SpaceSpec spec = SpaceSpec::Load(templates, "gemm/tiled");
    Problem problem = Problem::Parse(kGemm);
    Config config = BoundSpace(spec, problem, device).Enumerate(index + 1).at(index);
    testing::RecordMeasurement(db_, device, problem, spec, config, ms);
    return config.Key();
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(ExportCuda, CudaWinnersShipAsCubinAndPtxBesideOpenClOnes) {
  std::vector<DeviceInfo> opencl = harness::ListOpenClDevices();
  ASSERT_FALSE(opencl.empty());
  RecordWinner(opencl[0], 2.0);
  DeviceInfo h100 = LoadDeviceSpec(Paths::Default().constraints_dir, "sm_90");
  h100.backend = Backend::kCuda;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.vendor = "NVIDIA";
  h100.driver_version = "12.4";
  const std::string cuda_config = RecordWinner(h100, 0.05);

  ExportOptions options = ExportOptions::Defaults();
  options.templates_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  options.render_script = std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render/render.py";
  options.skeleton_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/beast/export_skeleton";
  options.db_path = db_;
  options.out_dir = (dir_ / "tuned").string();
  ExportSummary summary = ExportLibrary(options);
  ASSERT_EQ(summary.entries.size(), 2u);
  EXPECT_TRUE(summary.skipped.empty());
  int cuda_entries = 0;
  for (const ExportEntry& e : summary.entries) {
    if (e.backend != Backend::kCuda) continue;
    ++cuda_entries;
    EXPECT_EQ(e.device_name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(e.device_arch, "sm_90");
    EXPECT_EQ(e.config_key, cuda_config);
  }
  EXPECT_EQ(cuda_entries, 1);

  std::ifstream in(dir_ / "tuned" / "src" / "beast_kernels.c");
  const std::string kernels((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The cubin is an ELF image: 0x7f 'E' 'L' 'F'.
  EXPECT_NE(kernels.find("static const unsigned char kCubin0[] = {\n    127,69,76,70,"),
            std::string::npos);
  EXPECT_NE(kernels.find("static const char kPtx0[] ="), std::string::npos);
  EXPECT_NE(kernels.find("\".target sm_90\\n\""), std::string::npos);
  EXPECT_NE(kernels.find("    {\"sm_90\", kCubin0, sizeof kCubin0, kPtx0, 90},"),
            std::string::npos);
  EXPECT_NE(kernels.find("const int beast_cuda_module_count = 1;"), std::string::npos);
  EXPECT_NE(kernels.find("const int beast_program_count = 1;"), std::string::npos);
  const std::string oldest = harness::OldestNvrtcComputeArch();
  EXPECT_NE(kernels.find("const int beast_generic_ptx_cc = " + oldest.substr(8) + ";"),
            std::string::npos);
  EXPECT_NE(kernels.find("\".target sm_" + oldest.substr(8) + "\\n\""), std::string::npos);

  const std::string consumer =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/integration/export/cuda_export_consumer";
  const fs::path build = dir_ / "consumer";
  testing::CommandResult configured = RunCommand("cmake -S " + consumer + " -B " + build.string() +
                                                 " -DBEAST_TUNED_SOURCE_DIR=" + options.out_dir);
  ASSERT_EQ(configured.exit_code, 0) << configured.output;
  testing::CommandResult built = RunCommand("cmake --build " + build.string() + " -j2");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  testing::CommandResult ran = RunCommand(
      "BEAST_TUNED_CACHE_DIR= " + (build / "cuda_export_consumer").string() + " nodevice");
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(testing::CountOccurrences(ran.output, "FAIL"), 0u) << ran.output;
  EXPECT_EQ(testing::CountOccurrences(ran.output, "ok "), 4u) << ran.output;

  // The staleness check knows the CUDA entry as current, then a faster one.
  ExportCheck fresh = CheckExport(options);
  EXPECT_EQ(fresh.entries, 2u);
  EXPECT_EQ(fresh.stale, std::vector<std::string>{});
  const std::string faster = RecordWinner(h100, 0.04, 1);
  const std::string key = Problem::Parse(kGemm).Key();
  EXPECT_EQ(CheckExport(options).stale,
            std::vector<std::string>{
                key + " on NVIDIA H100 80GB HBM3: exported gemm/tiled " + cuda_config +
                " (0.05 ms), the database's best is now gemm/tiled " + faster + " (0.04 ms)"});
}

}  // namespace
}  // namespace beast
