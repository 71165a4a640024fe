// DeviceLimits <-> JSON, so a database remembers what a device could do and
// an export can bind spaces for a device that is not present (device.hpp).
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "beast/problem/device.hpp"
#include "beast/core/error.hpp"
#include "beast/core/json.hpp"

namespace beast {

std::string DeviceLimitsToJson(const DeviceLimits& l) {
  std::ostringstream o;
  o << "{\"max_work_group_size\": " << l.max_work_group_size << ", \"max_work_item_sizes\": ["
    << l.max_work_item_sizes[0] << ", " << l.max_work_item_sizes[1] << ", " << l.max_work_item_sizes[2]
    << "], \"local_mem_bytes\": " << l.local_mem_bytes << ", \"global_mem_bytes\": " << l.global_mem_bytes
    << ", \"compute_units\": " << l.compute_units << ", \"clock_mhz\": " << l.clock_mhz
    << ", \"warp_size\": " << l.warp_size << ", \"max_registers_per_thread\": " << l.max_registers_per_thread
    << ", \"peak_gflops\": " << JsonNumber(l.peak_gflops) << ", \"bandwidth_gbs\": " << JsonNumber(l.bandwidth_gbs)
    << "}";
  return o.str();
}

DeviceLimits DeviceLimitsFromJson(const std::string& json) {
  DeviceLimits l;
  try {
    YAML::Node n = YAML::Load(json);  // JSON is YAML
    if (!n.IsMap()) throw Error(ErrorCode::kBadInput, "device limits are not a JSON object: " + json);
    auto get = [&](const char* key, int64_t* out) {
      if (n[key].IsDefined() && !n[key].IsNull()) *out = n[key].as<int64_t>();
    };
    get("max_work_group_size", &l.max_work_group_size);
    get("local_mem_bytes", &l.local_mem_bytes);
    get("global_mem_bytes", &l.global_mem_bytes);
    get("compute_units", &l.compute_units);
    get("clock_mhz", &l.clock_mhz);
    get("warp_size", &l.warp_size);
    get("max_registers_per_thread", &l.max_registers_per_thread);
    if (n["max_work_item_sizes"].IsSequence()) {
      for (size_t d = 0; d < 3 && d < n["max_work_item_sizes"].size(); ++d) {
        l.max_work_item_sizes[d] = n["max_work_item_sizes"][d].as<int64_t>();
      }
    }
    if (n["peak_gflops"].IsDefined() && !n["peak_gflops"].IsNull()) l.peak_gflops = n["peak_gflops"].as<double>();
    if (n["bandwidth_gbs"].IsDefined() && !n["bandwidth_gbs"].IsNull()) l.bandwidth_gbs = n["bandwidth_gbs"].as<double>();
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kBadInput, "device limits are not valid JSON: " + e.msg);
  }
  return l;
}

}  // namespace beast
