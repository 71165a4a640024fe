// Reads device spec tables from constraints/devices (device_spec_table.hpp).
#include "beast/problem/device_spec_table.hpp"

#include <algorithm>
#include <filesystem>

#include "beast/core/error.hpp"
#include "beast/core/yaml_reader.hpp"

namespace beast {

std::vector<std::string> KnownDeviceSpecs(const std::string& constraints_dir) {
  std::vector<std::string> archs;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(constraints_dir + "/devices", ec);
       !ec && it != std::filesystem::directory_iterator(); ++it) {
    if (it->path().extension() == ".yaml") archs.push_back(it->path().stem().string());
  }
  std::sort(archs.begin(), archs.end());
  return archs;
}

DeviceInfo LoadDeviceSpec(const std::string& constraints_dir, const std::string& arch) {
  std::string path = constraints_dir + "/devices/" + arch + ".yaml";
  if (!std::filesystem::is_regular_file(path)) {
    std::string known;
    for (const auto& a : KnownDeviceSpecs(constraints_dir)) known += (known.empty() ? "" : " ") + a;
    throw Error(ErrorCode::kNotFound, "cuda:" + arch + ": no spec table for " + arch + " in " +
                                          constraints_dir + "/devices (known: " + known + ")");
  }
  YamlReader reader(path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kBadInput, path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  reader.CheckKeys(root,
                   {"arch", "name", "max_work_group_size", "max_work_item_sizes", "local_mem_bytes",
                    "compute_units", "clock_mhz", "warp_size", "max_registers_per_thread",
                    "peak_gflops", "bandwidth_gbs"},
                   "a device spec table");
  DeviceInfo d;
  d.backend = Backend::kCuda;
  d.index = -1;
  d.arch = arch;
  d.vendor = "NVIDIA";
  d.driver_version = "spec table";
  d.name = reader.Scalar(reader.Required(root, "name", "a device spec table"), "name");
  // Every size and count of a device is at least 1 (a warp size of 0 would
  // divide by zero in the constraints that read it).
  auto positive = [&](const YAML::Node& node, const std::string& what) -> int64_t {
    int64_t value = 0;
    try {
      value = node.as<int64_t>();
    } catch (const YAML::Exception&) {
      reader.Fail(node, what + " must be an integer");
    }
    if (value < 1) reader.Fail(node, what + " must be at least 1, not " + std::to_string(value));
    return value;
  };
  auto integer = [&](const char* key) -> int64_t {
    return positive(reader.Required(root, key, "a device spec table"), key);
  };
  auto number = [&](const char* key) -> double {
    YAML::Node node = reader.Required(root, key, "a device spec table");
    try {
      return node.as<double>();
    } catch (const YAML::Exception&) {
      reader.Fail(node, std::string(key) + " must be a number");
    }
  };
  DeviceLimits& l = d.limits;
  l.max_work_group_size = integer("max_work_group_size");
  YAML::Node sizes = reader.Required(root, "max_work_item_sizes", "a device spec table");
  if (!sizes.IsSequence() || sizes.size() != 3)
    reader.Fail(sizes, "max_work_item_sizes must list 3 sizes");
  for (int i = 0; i < 3; ++i)
    l.max_work_item_sizes[i] = positive(sizes[i], "max_work_item_sizes[" + std::to_string(i) + "]");
  l.local_mem_bytes = integer("local_mem_bytes");
  l.compute_units = integer("compute_units");
  l.clock_mhz = integer("clock_mhz");
  l.warp_size = integer("warp_size");
  l.max_registers_per_thread = integer("max_registers_per_thread");
  l.peak_gflops = number("peak_gflops");
  l.bandwidth_gbs = number("bandwidth_gbs");
  return d;
}

}  // namespace beast
