// ProbeCuda: the few CUDA driver API entry points beast needs to list devices,
// declared here and resolved with dlsym, so there is no link-time dependency
// on libcuda and no CUDA header.
#include "harness/cuda_driver.hpp"
#include "harness/nvrtc_compiler.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <string>

namespace beast::harness {
namespace {

using CuResult = int;  // CUresult; 0 is CUDA_SUCCESS
using CuDevice = int;  // CUdevice

using CuInitFn = CuResult (*)(unsigned int flags);
using CuDriverGetVersionFn = CuResult (*)(int* version);
using CuDeviceGetCountFn = CuResult (*)(int* count);
using CuDeviceGetFn = CuResult (*)(CuDevice* device, int ordinal);
using CuDeviceGetNameFn = CuResult (*)(char* name, int length, CuDevice device);
using CuDeviceGetAttributeFn = CuResult (*)(int* value, int attribute, CuDevice device);
using CuDeviceTotalMemFn = CuResult (*)(size_t* bytes, CuDevice device);
using CuGetErrorNameFn = CuResult (*)(CuResult error, const char** name);

// CUdevice_attribute values (cuda.h), stable across driver versions.
constexpr int kMaxThreadsPerBlock = 1;
constexpr int kMaxBlockDimX = 2;
constexpr int kMaxBlockDimY = 3;
constexpr int kMaxBlockDimZ = 4;
constexpr int kMaxSharedMemoryPerBlock = 8;
constexpr int kWarpSize = 10;
constexpr int kClockRateKhz = 13;
constexpr int kMultiprocessorCount = 16;
constexpr int kMemoryClockRateKhz = 36;
constexpr int kGlobalMemoryBusWidthBits = 37;
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
constexpr int kMaxSharedMemoryPerBlockOptin = 97;

// No attribute gives registers per thread; 255 is the architectural limit of
// every GPU since compute capability 3.0 (63 before).
constexpr int64_t kMaxRegistersPerThread = 255;

struct Driver {
  CuInitFn init = nullptr;
  CuDriverGetVersionFn get_version = nullptr;
  CuDeviceGetCountFn get_count = nullptr;
  CuDeviceGetFn get = nullptr;
  CuDeviceGetNameFn get_name = nullptr;
  CuDeviceGetAttributeFn get_attribute = nullptr;
  CuDeviceTotalMemFn total_mem = nullptr;
  CuGetErrorNameFn error_name = nullptr;  // optional
};

template <typename Fn>
bool Resolve(void* library, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  return *fn != nullptr;
}

std::string ErrorText(const Driver& driver, CuResult code) {
  const char* name = nullptr;
  std::string text = "error " + std::to_string(code);
  if (driver.error_name && driver.error_name(code, &name) == 0 && name) {
    text += " (" + std::string(name) + ")";
  }
  return text;
}

int Attribute(const Driver& driver, CuDevice device, int attribute) {
  int value = 0;
  if (driver.get_attribute(&value, attribute, device) != 0) return 0;
  return value;
}

beast::DeviceInfo DescribeDevice(const Driver& driver, CuDevice device, int ordinal,
                                 const std::string& driver_version) {
  beast::DeviceInfo info;
  info.backend = beast::Backend::kCuda;
  info.index = ordinal;
  char name[256] = {0};
  if (driver.get_name(name, sizeof(name) - 1, device) == 0) info.name = name;
  info.vendor = "NVIDIA";
  info.driver_version = driver_version;
  info.compiler = "nvrtc";
  info.compiler_version = NvrtcVersion();  // "" when beast was built without NVRTC
  info.arch = "sm_" + std::to_string(Attribute(driver, device, kComputeCapabilityMajor)) +
              std::to_string(Attribute(driver, device, kComputeCapabilityMinor));

  beast::DeviceLimits& limits = info.limits;
  limits.max_work_group_size = Attribute(driver, device, kMaxThreadsPerBlock);
  limits.max_work_item_sizes[0] = Attribute(driver, device, kMaxBlockDimX);
  limits.max_work_item_sizes[1] = Attribute(driver, device, kMaxBlockDimY);
  limits.max_work_item_sizes[2] = Attribute(driver, device, kMaxBlockDimZ);
  // The opt-in maximum is what a tuned kernel can have (by raising its
  // dynamic shared memory limit); the default 48 KiB only when there is none.
  int optin = Attribute(driver, device, kMaxSharedMemoryPerBlockOptin);
  limits.local_mem_bytes = optin > 0 ? optin : Attribute(driver, device, kMaxSharedMemoryPerBlock);
  size_t total = 0;
  if (driver.total_mem(&total, device) == 0) limits.global_mem_bytes = static_cast<int64_t>(total);
  limits.compute_units = Attribute(driver, device, kMultiprocessorCount);
  limits.clock_mhz = Attribute(driver, device, kClockRateKhz) / 1000;
  limits.warp_size = Attribute(driver, device, kWarpSize);
  limits.max_registers_per_thread = kMaxRegistersPerThread;
  // Double data rate: two transfers per memory clock over the bus width.
  double memory_khz = Attribute(driver, device, kMemoryClockRateKhz);
  double bus_bits = Attribute(driver, device, kGlobalMemoryBusWidthBits);
  limits.bandwidth_gbs = 2.0 * memory_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return info;
}

}  // namespace

CudaProbe ProbeCuda() {
  CudaProbe probe;
  // Never dlclose()d: the driver does not support being unloaded once
  // initialised, and later CUDA work in this process reuses it.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    probe.message = "no CUDA driver (libcuda.so.1 not found): CUDA devices unavailable";
    return probe;
  }
  Driver driver;
  bool found = Resolve(library, "cuInit", &driver.init) &&
               Resolve(library, "cuDriverGetVersion", &driver.get_version) &&
               Resolve(library, "cuDeviceGetCount", &driver.get_count) &&
               Resolve(library, "cuDeviceGet", &driver.get) &&
               Resolve(library, "cuDeviceGetName", &driver.get_name) &&
               Resolve(library, "cuDeviceGetAttribute", &driver.get_attribute) &&
               Resolve(library, "cuDeviceTotalMem_v2", &driver.total_mem);
  Resolve(library, "cuGetErrorName", &driver.error_name);
  if (!found) {
    probe.message = "libcuda.so.1 lacks a CUDA driver API entry point: CUDA devices unavailable";
    return probe;
  }
  probe.driver_loaded = true;
  int version = 0;
  driver.get_version(&version);
  std::string version_text =
      std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
  CuResult status = driver.init(0);
  if (status != 0) {
    probe.message = "CUDA driver " + version_text +
                    " loaded but cuInit failed: " + ErrorText(driver, status) +
                    ": CUDA devices unavailable";
    return probe;
  }
  int count = 0;
  status = driver.get_count(&count);
  if (status != 0) {
    probe.message =
        "CUDA driver " + version_text + ": cuDeviceGetCount failed: " + ErrorText(driver, status);
    return probe;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CuDevice device = 0;
    if (driver.get(&device, ordinal) != 0) continue;
    probe.devices.push_back(DescribeDevice(driver, device, ordinal, version_text));
  }
  probe.message = "CUDA driver " + version_text + ": " + std::to_string(probe.devices.size()) +
                  (probe.devices.size() == 1 ? " device" : " devices");
  return probe;
}

}  // namespace beast::harness
