// Device spec tables: the limits of a device that is not present, read from
// constraints/devices/<arch>.yaml, for compile-only work and space sizing
// (--device cuda:sm_90 on a machine without that GPU).
#pragma once

#include <string>
#include <vector>

#include "beast/problem/device.hpp"

namespace beast {

// Throws Error(kNotFound) naming the architectures that have a table when
// constraints_dir/devices/<arch>.yaml does not exist, Error(kBadInput)
// "FILE:LINE: ..." for a malformed table.
DeviceInfo LoadDeviceSpec(const std::string& constraints_dir, const std::string& arch);
std::vector<std::string> KnownDeviceSpecs(const std::string& constraints_dir);

}  // namespace beast
