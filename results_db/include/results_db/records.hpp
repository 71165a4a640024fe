// Records the tuner writes into the result store: a device as measured, one
// measurement, and one vendor-library baseline. Plain values only, so the store's callers need no
// SQLite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "beast/core/backend.hpp"
#include "beast/core/status.hpp"

namespace results_db {

// A device as it was when measured. (backend, name, driver_version) is its
// identity: a driver update makes a new device.
struct DeviceRecord {
  beast::Backend backend = beast::Backend::kOpenCL;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string arch;  // "sm_90", or the OpenCL device version
  std::string limits_json = "{}";
};

// How a run ended (it is "running" until then).
enum class RunEnd { kFinished, kInterrupted };

// One config measured (or failed) on one device for one problem.
struct MeasurementRecord {
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  int64_t config_id = 0;
  bool is_default = false;  // the template's default config (the baseline)
  // A failed config is data: recorded with its status so a resumed run does
  // not retry it. Any status but unsupported (IsMeasurementStatus).
  beast::Status status = beast::Status::kOk;
  std::vector<double> samples_ms;  // raw timings, stored as a JSON array
  std::optional<double> median_ms;
  std::optional<double> spread;  // relative: (p75 - p25) / median
  std::optional<double> gflops;
  std::optional<double> max_error;  // against the reference implementation
  std::optional<double> compile_ms;
  std::string error_text;
  std::string build_log;
  // Provenance (schema version 2): the compiler that built the kernel
  // ("opencl": the OpenCL platform's compiler, or "nvrtc") and its version
  // (the OpenCL platform version, e.g. PoCL's, or NVRTC's). "" when unknown.
  std::string compiler;
  std::string compiler_version;
  // What the compiled kernel needs (schema version 3), as its compiler
  // reports it; unset where the backend does not say or nothing compiled.
  std::optional<int64_t> registers;     // per thread
  std::optional<int64_t> spill_bytes;   // spill stores + spill loads
  std::optional<int64_t> stack_bytes;   // stack frame / OpenCL private memory
  std::optional<int64_t> shared_bytes;  // CUDA shared / OpenCL local memory per group
  // What chose the config (schema version 5): the strategy ("model",
  // "random", "exhaustive") or "default" for the template's default.
  std::string strategy;
  // How many times the config was measured for this outcome (schema
  // version 6): 2 after a device worker died under it once.
  int attempts = 1;
  // The device time of the config's prepare stages (schema version 7): the
  // weights' transform, run once per weight buffer, not in median_ms; unset
  // for a config without them.
  std::optional<double> prepare_ms;
};

// One measured config of a (device, problem, template version), as a search
// learns from it: in the order measurements were recorded.
struct MeasuredOutcome {
  int64_t measurement_id = 0;
  std::string config_key;
  beast::Status status = beast::Status::kOk;
  std::optional<double> median_ms;
  int64_t device_id = 0, problem_id = 0;
  int64_t run_id = 0;  // the run that recorded it (MeasuredOutcomes only)
};

// A vendor library's routine (CLBlast, cuBLAS, cuDNN...) timed on one device
// for one problem in the same run as the tuned kernels. (device, problem,
// library, routine) is its identity: a resumed run skips it.
struct BaselineRecord {
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  std::string library;                        // "clblast", "cublas", "cudnn", ... (lower case)
  std::string routine;                        // "Sgemm", "Convgemm", an algorithm name
  beast::Status status = beast::Status::kOk;  // IsBaselineStatus
  std::vector<double> samples_ms;             // raw timings, stored as a JSON array
  std::optional<double> median_ms;
  std::optional<double> spread;  // relative: (p75 - p25) / median
  std::optional<double> gflops;
  std::optional<double> max_error;  // against the reference implementation
  std::string error_text;
  std::string library_version;  // e.g. "1.6.3"; "" when unknown
};

}  // namespace results_db
