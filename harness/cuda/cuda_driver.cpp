// ProbeCuda: lists the CUDA devices and their limits through the driver API
// loaded at run time (cuda_api.hpp), so there is no link-time dependency on
// libcuda and no CUDA header.
#include "harness/cuda/cuda_driver.hpp"

#include <cstddef>
#include <string>

#include "harness/cuda/cuda_api.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast::harness {
namespace {

// No attribute gives registers per thread; 255 is the architectural limit of
// every GPU since compute capability 3.0 (63 before).
constexpr int64_t kMaxRegistersPerThread = 255;

int Attribute(const cuda::Api& api, cuda::Device device, int attribute) {
  int value = 0;
  if (api.DeviceGetAttribute(&value, attribute, device) != cuda::kSuccess) return 0;
  return value;
}

beast::DeviceInfo DescribeDevice(const cuda::Api& api, cuda::Device device, int ordinal,
                                 const std::string& driver_version) {
  using namespace cuda;
  beast::DeviceInfo info;
  info.backend = beast::Backend::kCuda;
  info.index = ordinal;
  char name[256] = {0};
  if (api.DeviceGetName(name, sizeof(name) - 1, device) == kSuccess) info.name = name;
  info.vendor = "NVIDIA";
  info.driver_version = driver_version;
  info.compiler = "nvrtc";
  info.compiler_version = NvrtcVersion();  // "" when beast was built without NVRTC
  info.arch = "sm_" + std::to_string(Attribute(api, device, kComputeCapabilityMajor)) +
              std::to_string(Attribute(api, device, kComputeCapabilityMinor));

  beast::DeviceLimits& limits = info.limits;
  limits.max_work_group_size = Attribute(api, device, kMaxThreadsPerBlock);
  limits.max_work_item_sizes[0] = Attribute(api, device, kMaxBlockDimX);
  limits.max_work_item_sizes[1] = Attribute(api, device, kMaxBlockDimY);
  limits.max_work_item_sizes[2] = Attribute(api, device, kMaxBlockDimZ);
  // The opt-in maximum is what a tuned kernel can have (by raising its
  // dynamic shared memory limit); the default 48 KiB only when there is none.
  int optin = Attribute(api, device, kMaxSharedMemoryPerBlockOptin);
  limits.local_mem_bytes = optin > 0 ? optin : Attribute(api, device, kMaxSharedMemoryPerBlock);
  size_t total = 0;
  if (api.DeviceTotalMem(&total, device) == kSuccess)
    limits.global_mem_bytes = static_cast<int64_t>(total);
  // CUDA has no per-allocation limit below the device's memory.
  limits.max_alloc_bytes = limits.global_mem_bytes;
  limits.fp64 = true;  // every CUDA GPU has double precision
  limits.compute_units = Attribute(api, device, kMultiprocessorCount);
  limits.clock_mhz = Attribute(api, device, kClockRateKhz) / 1000;
  limits.warp_size = Attribute(api, device, kWarpSize);
  limits.max_registers_per_thread = kMaxRegistersPerThread;
  // Double data rate: two transfers per memory clock over the bus width.
  double memory_khz = Attribute(api, device, kMemoryClockRateKhz);
  double bus_bits = Attribute(api, device, kGlobalMemoryBusWidthBits);
  limits.bandwidth_gbs = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  // FP32: 2 FLOPs per FMA, 128 FP32 lanes per SM since Ampere's GA10x and
  // Hopper (64 on Volta, Turing and A100); the measured peak replaces it.
  int major = Attribute(api, device, kComputeCapabilityMajor);
  int minor = Attribute(api, device, kComputeCapabilityMinor);
  int lanes = (major >= 9 || (major == 8 && minor >= 6)) ? 128 : 64;
  limits.peak_gflops =
      2.0 * lanes * limits.compute_units * (Attribute(api, device, kClockRateKhz) / 1e6);
  return info;
}

}  // namespace

CudaProbe ProbeCuda() {
  CudaProbe probe;
  std::string why;
  const cuda::Api* api = cuda::LoadApi(&why);
  if (api == nullptr) {
    probe.message = why + ": CUDA devices unavailable";
    return probe;
  }
  probe.driver_loaded = true;
  const std::string version_text = cuda::DriverVersionText(*api);
  cuda::Result status = api->Init(0);
  if (status != cuda::kSuccess) {
    probe.message = "CUDA driver " + version_text +
                    " loaded but cuInit failed: " + cuda::ErrorText(*api, status) +
                    ": CUDA devices unavailable";
    return probe;
  }
  int count = 0;
  status = api->DeviceGetCount(&count);
  if (status != cuda::kSuccess) {
    probe.message = "CUDA driver " + version_text +
                    ": cuDeviceGetCount failed: " + cuda::ErrorText(*api, status);
    return probe;
  }
  std::string stopped;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cuda::Device device = 0;
    // cuda:N is the driver's ordinal N: a device that cannot be opened ends
    // the list rather than shift the ones after it.
    if ((status = api->DeviceGet(&device, ordinal)) != cuda::kSuccess) {
      stopped = " (cuDeviceGet(" + std::to_string(ordinal) +
                ") failed: " + cuda::ErrorText(*api, status) +
                "; the devices from it on are not listed)";
      break;
    }
    probe.devices.push_back(DescribeDevice(*api, device, ordinal, version_text));
  }
  probe.message = "CUDA driver " + version_text + ": " + std::to_string(probe.devices.size()) +
                  (probe.devices.size() == 1 ? " device" : " devices") + stopped;
  return probe;
}

}  // namespace beast::harness
