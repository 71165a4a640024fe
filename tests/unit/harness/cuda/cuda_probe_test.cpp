// The CUDA driver probe: on a machine without libcuda.so.1 it says so in one
// exact line; with a driver it lists devices with their sm_ architecture. A
// driver of an older CUDA major version than NVRTC is refused.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "beast/core/error.hpp"
#include "harness/cuda/cuda_driver.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast::harness {
namespace {

bool DriverPresent() {
  // Decided independently of ProbeCuda, so the test checks the right branch.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return library != nullptr;  // left open, as ProbeCuda leaves it
}

TEST(ProbeCuda, ReportsTheDriverOrItsAbsence) {
  CudaProbe probe = ProbeCuda();
  if (!DriverPresent()) {
    EXPECT_FALSE(probe.driver_loaded);
    EXPECT_EQ(probe.message, "no CUDA driver (libcuda.so.1 not found): CUDA devices unavailable");
    EXPECT_TRUE(probe.devices.empty());
    return;
  }
  EXPECT_TRUE(probe.driver_loaded);
  EXPECT_FALSE(probe.message.empty());
  for (size_t i = 0; i < probe.devices.size(); ++i) {
    const DeviceInfo& device = probe.devices[i];
    EXPECT_EQ(device.backend, Backend::kCuda);
    EXPECT_EQ(device.index, static_cast<int>(i));
    EXPECT_EQ(device.arch.rfind("sm_", 0), 0u) << device.arch;
    EXPECT_FALSE(device.name.empty());
    EXPECT_EQ(device.limits.warp_size, 32);
    EXPECT_GE(device.limits.max_work_group_size, 1024);
    EXPECT_GT(device.limits.compute_units, 0);
    EXPECT_GT(device.limits.local_mem_bytes, 0);
    EXPECT_GT(device.limits.global_mem_bytes, 0);
  }
}

TEST(ProbeCuda, RepeatedProbesAgree) {
  CudaProbe first = ProbeCuda();
  CudaProbe second = ProbeCuda();
  EXPECT_EQ(first.driver_loaded, second.driver_loaded);
  EXPECT_EQ(first.message, second.message);
  EXPECT_EQ(first.devices.size(), second.devices.size());
}

// A CUDA 12 driver cannot load NVRTC 13's cubins: refused in one line; a
// newer or equal driver, or an unknown version, passes.
TEST(CheckDriverLoadsNvrtc, RefusesADriverOfAnOlderMajorVersion) {
  try {
    CheckDriverLoadsNvrtc("cuda:0 (NVIDIA H100)", "12.4", "13.0");
    FAIL() << "a CUDA 12.4 driver was taken for NVRTC 13.0";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kEnvironment);
    EXPECT_EQ(std::string(e.what()),
              "cuda:0 (NVIDIA H100): its driver supports CUDA 12.4, older than this beast's "
              "NVRTC 13.0 (the driver cannot load the kernels it compiles): update the driver "
              "to one for CUDA 13, or build beast with a CUDA 12 toolkit");
  }
  for (const char* driver : {"13.0", "13.1", "14.0", ""})
    EXPECT_NO_THROW(CheckDriverLoadsNvrtc("cuda:0", driver, "13.0")) << driver;
  EXPECT_NO_THROW(CheckDriverLoadsNvrtc("cuda:0", "12.4", ""));      // built without NVRTC
  EXPECT_NO_THROW(CheckDriverLoadsNvrtc("cuda:0", "12.8", "12.4"));  // minor versions: compatible
}

}  // namespace
}  // namespace beast::harness
