// The OpenCL devices of this machine, as beast sees them: every platform's
// devices in one list, a device's index being its position ("opencl:N").
#pragma once

#include <vector>

#include "beast/problem/device.hpp"

namespace beast::harness {

// Lists every device of every OpenCL platform, in platform order, with its
// name, vendor, driver, version string (as arch) and limits. warp_size is the
// preferred work-group size multiple of a trivial kernel built on the device
// (1 if that build fails). No ICD, no platform or no device gives an empty
// list: having no OpenCL device is a fact to report, not an error.
std::vector<beast::DeviceInfo> ListOpenClDevices();

// Whether opencl:<device_index> is a CPU (CL_DEVICE_TYPE_CPU): its kernels run
// on the cores that compile them. False for an index that is not there.
bool IsCpuOpenClDevice(int device_index);

}  // namespace beast::harness
