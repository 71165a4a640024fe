// Turns a --device selector into the DeviceInfo of a live device, or throws
// one clear line: no such device, no CUDA driver, no spec table for an arch;
// with to_compile, also a CUDA device this beast cannot compile for (no
// NVRTC, an architecture the installed NVRTC does not support, or a driver
// too old to load what it compiles).
#pragma once

#include <string>

#include "beast/problem/device.hpp"

namespace beast {

DeviceInfo ResolveDevice(const DeviceSelector& selector, bool to_compile = true);
// A cuda:local or opencl:local selector made the device of the node's
// `local_index`-th device rank (0-based); any other selector as it is.
// Throws when the node has no such device, or fewer devices of the backend
// than that rank's place needs (no two ranks share one device).
DeviceSelector LocalDevice(const DeviceSelector& selector, int local_index);
// The device `beast tune` uses when none is named: the first CUDA GPU when
// the driver finds one and this beast has NVRTC, else the first OpenCL
// device (PoCL on a machine without a GPU). Throws when there is neither.
DeviceSelector BestDevice();
// Throws Error(kEnvironment) naming `what` when a driver of CUDA
// `driver_version` ("12.4") cannot load cubins of NVRTC `nvrtc_version`
// ("13.0"): an older major version (CUDA's compatibility across minor
// versions stops there). Either version empty: nothing to check.
void CheckDriverLoadsNvrtc(const std::string& what, const std::string& driver_version,
                           const std::string& nvrtc_version);

}  // namespace beast
