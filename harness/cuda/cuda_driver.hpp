// Probe of the CUDA driver. libcuda.so.1 is opened at run time, so every beast
// binary builds and runs on a machine without a GPU and says so plainly.
#pragma once

#include <string>
#include <vector>

#include "beast/problem/device.hpp"

namespace beast::harness {

struct CudaProbe {
  bool driver_loaded = false;  // libcuda.so.1 opened and its entry points found
  std::string message;         // one line for `beast devices`: what was found, or why not
  std::vector<beast::DeviceInfo> devices;  // backend kCuda, arch "sm_XY", index = ordinal
};

// dlopen()s libcuda.so.1, calls cuInit and lists the devices with their
// limits from cuDeviceGetAttribute. Never throws: a missing driver or a
// failing cuInit is reported in `message` with no devices.
CudaProbe ProbeCuda();

}  // namespace beast::harness
