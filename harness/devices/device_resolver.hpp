// Turns a --device selector into the DeviceInfo of a live device, or throws
// one clear line: no such device, no CUDA driver, no spec table for an arch;
// with to_compile, also a CUDA device this beast cannot compile for (no
// NVRTC, or an architecture the installed NVRTC does not support).
#pragma once

#include "beast/problem/device.hpp"

namespace beast {

DeviceInfo ResolveDevice(const DeviceSelector& selector, bool to_compile = true);
// The device `beast tune` uses when none is named: the first CUDA GPU when
// the driver finds one and this beast has NVRTC, else the first OpenCL
// device (PoCL on a machine without a GPU). Throws when there is neither.
DeviceSelector BestDevice();

}  // namespace beast
