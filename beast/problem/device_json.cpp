// DeviceLimits <-> JSON, so a database remembers what a device could do and
// an export can bind spaces for a device that is not present (device.hpp).
#include <nlohmann/json.hpp>

#include "beast/core/error.hpp"
#include "beast/problem/device.hpp"

namespace beast {

std::string DeviceLimitsToJson(const DeviceLimits& l) {
  nlohmann::ordered_json j;
  j["max_work_group_size"] = l.max_work_group_size;
  j["max_work_item_sizes"] = {l.max_work_item_sizes[0], l.max_work_item_sizes[1],
                              l.max_work_item_sizes[2]};
  j["local_mem_bytes"] = l.local_mem_bytes;
  j["global_mem_bytes"] = l.global_mem_bytes;
  j["max_alloc_bytes"] = l.max_alloc_bytes;
  j["fp64"] = l.fp64;
  j["compute_units"] = l.compute_units;
  j["clock_mhz"] = l.clock_mhz;
  j["warp_size"] = l.warp_size;
  j["max_registers_per_thread"] = l.max_registers_per_thread;
  j["peak_gflops"] = l.peak_gflops;  // a NaN or infinity is written as null
  j["bandwidth_gbs"] = l.bandwidth_gbs;
  return j.dump();
}

DeviceLimits DeviceLimitsFromJson(const std::string& json) {
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw Error(ErrorCode::kBadInput, "device limits are not valid JSON: " + json);
  if (!j.is_object())
    throw Error(ErrorCode::kBadInput, "device limits are not a JSON object: " + json);
  DeviceLimits l;
  try {
    auto get = [&](const char* key, auto* out) {
      auto it = j.find(key);
      if (it != j.end() && !it->is_null()) *out = it->get<std::remove_pointer_t<decltype(out)>>();
    };
    get("max_work_group_size", &l.max_work_group_size);
    get("local_mem_bytes", &l.local_mem_bytes);
    get("global_mem_bytes", &l.global_mem_bytes);
    get("max_alloc_bytes", &l.max_alloc_bytes);
    get("fp64", &l.fp64);
    get("compute_units", &l.compute_units);
    get("clock_mhz", &l.clock_mhz);
    get("warp_size", &l.warp_size);
    get("max_registers_per_thread", &l.max_registers_per_thread);
    get("peak_gflops", &l.peak_gflops);
    get("bandwidth_gbs", &l.bandwidth_gbs);
    auto sizes = j.find("max_work_item_sizes");
    if (sizes != j.end() && sizes->is_array()) {
      for (size_t d = 0; d < 3 && d < sizes->size(); ++d)
        l.max_work_item_sizes[d] = (*sizes)[d].get<int64_t>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::kBadInput, std::string("device limits are not valid: ") + e.what());
  }
  return l;
}

}  // namespace beast
