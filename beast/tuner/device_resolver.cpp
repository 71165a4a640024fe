// Resolution of --device selectors against the devices present (device_resolver.hpp).
#include "beast/device_resolver.hpp"

#include "beast/device_spec_table.hpp"
#include "beast/error.hpp"
#include "beast/paths.hpp"
#include "harness/cuda_driver.hpp"
#include "harness/nvrtc_compiler.hpp"
#include "harness/opencl_devices.hpp"

namespace beast {

DeviceInfo ResolveDevice(const DeviceSelector& selector) {
  if (selector.backend == Backend::kCuda) {
    if (!selector.arch.empty())
      return LoadDeviceSpec(Paths::Default().constraints_dir, selector.arch);
    harness::CudaProbe probe = harness::ProbeCuda();
    if (!probe.driver_loaded)
      throw Error(ErrorCode::kEnvironment,
                  "cuda:" + std::to_string(selector.index) + ": " + probe.message);
    if (selector.index >= static_cast<int>(probe.devices.size())) {
      throw Error(ErrorCode::kNotFound, "no device cuda:" + std::to_string(selector.index) + " (" +
                                            std::to_string(probe.devices.size()) +
                                            " CUDA GPUs present)");
    }
    if (!harness::NvrtcAvailable()) {
      throw Error(ErrorCode::kEnvironment,
                  "cuda:" + std::to_string(selector.index) +
                      ": this beast was built without NVRTC (CUDA toolkit not found), so "
                      "it cannot compile kernels for it");
    }
    return probe.devices[selector.index];
  }
  std::vector<DeviceInfo> devices = harness::ListOpenCLDevices();
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
  if (!harness::ListOpenCLDevices().empty()) return sel;
  throw Error(
      ErrorCode::kNotFound,
      "no CUDA GPU and no OpenCL device found (install an OpenCL driver such as PoCL: ./run does)");
}

}  // namespace beast
