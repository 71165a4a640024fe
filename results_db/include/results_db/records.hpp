// Records the tuner writes into the result store: a device as measured and one
// measurement. Plain values only, so the store's callers need no SQLite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace results_db {

// A device as it was when measured. (backend, name, driver_version) is its
// identity: a driver update makes a new device.
struct DeviceRecord {
  std::string backend;  // "opencl" or "cuda"
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string arch;  // "sm_90", or the OpenCL device version
  std::string limits_json = "{}";
};

// Measurement statuses, in the order the schema lists them. A failed config is
// data: it is recorded with its status so a resumed run does not retry it.
inline constexpr const char* kMeasurementStatuses[] = {
    "ok",      "compile_error", "runtime_error",       "crashed",
    "timeout", "wrong_result",  "pruned_after_compile"};
bool IsMeasurementStatus(const std::string& status);

// Run statuses: a run starts "running" and ends "finished" or "interrupted".
inline constexpr const char* kRunStatuses[] = {"running", "finished", "interrupted"};
bool IsRunStatus(const std::string& status);

// One config measured (or failed) on one device for one problem.
struct MeasurementRecord {
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  int64_t config_id = 0;
  bool is_default = false;         // the template's default config (the baseline)
  std::string status = "ok";       // one of kMeasurementStatuses
  std::vector<double> samples_ms;  // raw timings, stored as a JSON array
  std::optional<double> median_ms;
  std::optional<double> spread;  // relative: (p75 - p25) / median
  std::optional<double> gflops;
  std::optional<double> max_error;  // against the reference implementation
  std::optional<double> compile_ms;
  std::string error_text;
  std::string build_log;
};

}  // namespace results_db
