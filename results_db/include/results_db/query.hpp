// What the result store answers: a filter for measurements, the rows it
// returns, the winners the exporter turns into a tuned library, and the
// vendor-library baselines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "beast/core/status.hpp"

namespace results_db {

// A config parameter's required value: a value that reads as a number matches
// that number (32 matches 32 and 32.0), any other text matches a string.
struct ParamMatch {
  std::string name;  // as in the configs' params_json
  std::string value;
};

// Every field set narrows the query; unset fields match everything.
struct QueryFilter {
  std::optional<std::string> problem_key;    // exact canonical key
  std::optional<std::string> op;             // "conv2d" or "gemm"
  std::optional<std::string> template_name;  // "gemm/tiled"
  std::optional<int64_t> device_id;
  std::optional<beast::Status> status;
  std::optional<std::string> device_name;    // exact name (any driver version)
  std::optional<std::string> template_hash;  // one version of the template
  std::vector<ParamMatch> params;            // all must hold
  // Only the best "ok" measurement per (device, problem, template), taken from
  // the newest version of the template that has an ok measurement there: the
  // fastest of the confirmation that stands for it (confirmed_ms), else the
  // lowest median, first recorded on a tie.
  bool best_only = false;
  // The top_k best ok measurements per (device, problem, template), chosen as
  // best_only chooses one (best_only is top_k = 1); 0: off.
  int64_t top_k = 0;
  int64_t limit = 0;  // 0: no limit
};

// The fastest ok routine of one library on a row's device and problem, and
// how many times faster the row is: baseline median / row median (unset
// unless the row is ok).
struct BaselineSpeedup {
  std::string library;
  std::string routine;
  double median_ms = 0;
  std::optional<double> speedup;
};

// One measurement with the names of what it measured. Rows come ordered by
// device, problem, template, then median (failures last).
struct ResultRow {
  int64_t measurement_id = 0;
  int64_t run_id = 0;
  int64_t device_id = 0;
  std::string backend;
  std::string device_name;
  int64_t problem_id = 0;
  std::string problem_key;
  int64_t template_id = 0;
  std::string template_name;
  std::string template_hash;
  int64_t config_id = 0;
  std::string config_key;
  std::string params_json;
  beast::Status status = beast::Status::kOk;
  bool is_default = false;
  std::optional<double> median_ms;
  std::optional<double> spread;
  std::optional<double> gflops;
  std::optional<double> max_error;
  std::optional<double> compile_ms;
  // The device time of the config's prepare stages, run once per weight
  // buffer and not part of median_ms (MeasurementRecord); unset without them.
  std::optional<double> prepare_ms;
  // The compiled kernel's resources (MeasurementRecord); unset when unknown.
  std::optional<int64_t> registers, spill_bytes, stack_bytes, shared_bytes;
  // The strategy that chose the config ("model", "random", "exhaustive",
  // "default"); "" for one measured before schema version 5 or imported.
  std::string strategy;
  // Its median in the re-measurement that confirmed its pair's winner, when it
  // took part in the one that stands (confirmed_medians in schema.sql).
  std::optional<double> confirmed_ms;
  // Median of the default config of the same template version on the same
  // device and problem, divided by this median; unset unless both are ok.
  // When both took part in the confirmation that stands, their confirmed
  // medians (like against like), and speedup_from_confirmed says so.
  std::optional<double> speedup_vs_default;
  bool speedup_from_confirmed = false;
  std::string error_text;
  // One entry per library with an ok baseline on this device and problem,
  // ordered by library name.
  std::vector<BaselineSpeedup> baselines;
};

// The best ok config per (device, problem, template), as the exporter needs it.
struct WinnerRow {
  int64_t device_id = 0;
  std::string backend;
  std::string device_name;
  std::string vendor;
  std::string driver_version;
  std::string arch;
  std::string limits_json;  // the device's limits when it was measured (DeviceLimitsToJson)
  int64_t problem_id = 0;
  std::string problem_key;
  std::string op;
  int64_t template_id = 0;
  std::string template_name;
  std::string template_hash;
  std::string source_path;
  int64_t config_id = 0;
  std::string config_key;
  std::string params_json;
  double median_ms = 0;
  // The config's prepare stages (not in median_ms); unset without them.
  std::optional<double> prepare_ms;
  std::optional<double> gflops;
  std::optional<double> speedup_vs_default;
};

// A device row of the database (one per backend, name and driver version).
struct DeviceRow {
  int64_t device_id = 0;
  std::string backend;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string arch;
};

// Wall time a device spent on a problem, over every run (Store::TimeSpent).
struct TimeSpentRow {
  int64_t device_id = 0;
  std::string device_name;
  std::string problem_key;
  double seconds = 0;
};

// One side of a comparison: a device's best ok config for a problem, over all
// the templates the filter allows.
struct ComparedBest {
  std::string device_name;
  int64_t device_id = 0;  // the device row compared (one driver and backend)
  std::string template_name;
  std::string config_key;
  double median_ms = 0;
  std::optional<double> gflops;
};

// A problem both compared devices have an ok measurement of. ratio = a's
// median / b's median: above 1, b is that many times faster.
struct ComparisonRow {
  std::string problem_key;
  ComparedBest a;
  ComparedBest b;
  double ratio = 0;
};

// Every field set narrows Store::Baselines; unset fields match everything.
struct BaselineFilter {
  std::optional<int64_t> device_id;
  std::optional<std::string> problem_key;  // exact canonical key
  std::optional<std::string> library;
  std::optional<beast::Status> status;
};

// One baseline with the names of its device and problem. Rows come ordered by
// device, problem, library, routine.
struct BaselineRow {
  int64_t baseline_id = 0;
  int64_t run_id = 0;
  int64_t device_id = 0;
  std::string backend;
  std::string device_name;
  int64_t problem_id = 0;
  std::string problem_key;
  std::string library;
  std::string routine;
  beast::Status status = beast::Status::kOk;
  std::string samples_json;
  std::optional<double> median_ms;
  std::optional<double> spread;
  std::optional<double> gflops;
  std::optional<double> max_error;
  std::string error_text;
  std::string library_version;
  std::string measured_at;
};

}  // namespace results_db
