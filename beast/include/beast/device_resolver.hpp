// Turns a --device selector into the DeviceInfo of a live device, or throws
// one clear line: no such device, no CUDA driver, no spec table for an arch.
#pragma once

#include "beast/device.hpp"

namespace beast {

DeviceInfo ResolveDevice(const DeviceSelector& selector);
// The device `beast tune` uses when none is named: the first OpenCL device
// (kernels run through OpenCL only, until the CUDA backend lands). Throws
// when there is none.
DeviceSelector BestDevice();

}  // namespace beast
