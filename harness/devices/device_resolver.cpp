// Resolution of --device selectors against the devices present (device_resolver.hpp).
#include "harness/devices/device_resolver.hpp"

#include <algorithm>
#include <cstdlib>

#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "harness/cuda/cuda_driver.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/opencl/opencl_devices.hpp"

namespace beast {
namespace {

// Refuses a CUDA device whose architecture ("sm_70") this NVRTC cannot
// compile for: every config would only be a compile error.
void CheckNvrtcSupports(const std::string& what, const std::string& arch) {
  std::vector<int> archs = harness::NvrtcSupportedArchs();
  if (archs.empty() || arch.rfind("sm_", 0) != 0) return;
  const int cc = std::atoi(arch.c_str() + 3);
  if (std::find(archs.begin(), archs.end(), cc) != archs.end()) return;
  throw Error(ErrorCode::kEnvironment,
              what + ": NVRTC " + harness::NvrtcVersion() + " cannot compile for " + arch +
                  " (it supports sm_" + std::to_string(archs.front()) + " to sm_" +
                  std::to_string(archs.back()) + "): use a CUDA toolkit that does");
}

}  // namespace

DeviceInfo ResolveDevice(const DeviceSelector& selector, bool to_compile) {
  if (selector.local) {
    throw Error(ErrorCode::kBadArgument,
                std::string(BackendName(selector.backend)) +
                    ":local names a device by the rank's place on its node: it is for mpirun");
  }
  if (selector.backend == Backend::kCuda) {
    if (!selector.arch.empty()) {
      DeviceInfo spec = LoadDeviceSpec(Paths::Default().constraints_dir, selector.arch);
      if (to_compile) CheckNvrtcSupports("cuda:" + selector.arch, selector.arch);
      return spec;
    }
    harness::CudaProbe probe = harness::ProbeCuda();
    if (!probe.driver_loaded)
      throw Error(ErrorCode::kEnvironment,
                  "cuda:" + std::to_string(selector.index) + ": " + probe.message);
    if (selector.index >= static_cast<int>(probe.devices.size())) {
      throw Error(ErrorCode::kNotFound, "no device cuda:" + std::to_string(selector.index) + " (" +
                                            std::to_string(probe.devices.size()) +
                                            " CUDA GPUs present)");
    }
    if (to_compile && !harness::NvrtcAvailable()) {
      throw Error(ErrorCode::kEnvironment,
                  "cuda:" + std::to_string(selector.index) +
                      ": this beast was built without NVRTC (CUDA toolkit not found), so "
                      "it cannot compile kernels for it");
    }
    const DeviceInfo& gpu = probe.devices[selector.index];
    if (to_compile) {
      const std::string what = "cuda:" + std::to_string(selector.index) + " (" + gpu.name + ")";
      CheckNvrtcSupports(what, gpu.arch);
      CheckDriverLoadsNvrtc(what, gpu.driver_version, harness::NvrtcVersion());
    }
    return gpu;
  }
  std::vector<DeviceInfo> devices = harness::ListOpenClDevices();
  if (selector.index >= static_cast<int>(devices.size())) {
    std::string present;
    for (const auto& d : devices)
      present += (present.empty() ? ": " : ", ") + d.Id() + " " + d.name;
    throw Error(ErrorCode::kNotFound, "no device opencl:" + std::to_string(selector.index) + " (" +
                                          std::to_string(devices.size()) +
                                          " OpenCL devices present" + present + ")");
  }
  return devices[selector.index];
}

DeviceSelector BestDevice() {
  DeviceSelector sel;
  // A CUDA GPU when there is one and this beast can compile for it.
  if (harness::NvrtcAvailable() && !harness::ProbeCuda().devices.empty()) {
    sel.backend = Backend::kCuda;
    return sel;
  }
  if (!harness::ListOpenClDevices().empty()) return sel;
  throw Error(
      ErrorCode::kNotFound,
      "no CUDA GPU and no OpenCL device found (install an OpenCL driver such as PoCL: ./run does)");
}

DeviceSelector LocalDevice(const DeviceSelector& selector, int local_index) {
  if (!selector.local) return selector;
  const size_t count = selector.backend == Backend::kCuda ? harness::ProbeCuda().devices.size()
                                                          : harness::ListOpenClDevices().size();
  const std::string name = std::string(BackendName(selector.backend)) + ":local";
  if (count == 0) throw Error(ErrorCode::kNotFound, name + ": no such device on this node");
  // Two ranks on one device would each time their kernels while the other's
  // run: both would record disturbed times, silently.
  if (static_cast<size_t>(local_index) >= count)
    throw Error(ErrorCode::kBadArgument,
                name + ": this is device rank " + std::to_string(local_index + 1) +
                    " of its node, which has " + std::to_string(count) + " " +
                    BackendName(selector.backend) + " device" + (count == 1 ? "" : "s") +
                    ": start at most one device rank per device (two on one disturb each "
                    "other's times)");
  DeviceSelector out = selector;
  out.local = false;
  out.index = local_index;
  return out;
}

void CheckDriverLoadsNvrtc(const std::string& what, const std::string& driver_version,
                           const std::string& nvrtc_version) {
  const int nvrtc_major = std::atoi(nvrtc_version.c_str());
  const int driver_major = std::atoi(driver_version.c_str());
  if (nvrtc_major <= 0 || driver_major <= 0 || driver_major >= nvrtc_major) return;
  throw Error(ErrorCode::kEnvironment,
              what + ": its driver supports CUDA " + driver_version +
                  ", older than this beast's NVRTC " + nvrtc_version +
                  " (the driver cannot load the kernels it compiles): update the driver to one "
                  "for CUDA " +
                  std::to_string(nvrtc_major) + ", or build beast with a CUDA " +
                  std::to_string(driver_major) + " toolkit");
}

}  // namespace beast
