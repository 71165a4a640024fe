// Records the tuner writes into the result store: a device as measured, one
// measurement, and one vendor-library baseline. Plain values only, so the store's callers need no SQLite.
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
// "pruned_after_compile": a post-compile constraint rejected the compiled
// kernel, which did not run; "compiled": compiled fine for a device that is
// not present (compile-only tuning), so not run.
inline constexpr const char* kMeasurementStatuses[] = {
    "ok",      "compile_error", "runtime_error",        "crashed",
    "timeout", "wrong_result",  "pruned_after_compile", "compiled"};
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
};

// Baseline statuses: the measurement statuses that apply to a library call,
// plus "unsupported" for a problem the routine cannot compute.
inline constexpr const char* kBaselineStatuses[] = {
    "ok",      "compile_error", "runtime_error", "crashed",
    "timeout", "wrong_result",  "unsupported"};
bool IsBaselineStatus(const std::string& status);

// A vendor library's routine (CLBlast, cuBLAS, cuDNN...) timed on one device
// for one problem in the same run as the tuned kernels. (device, problem,
// library, routine) is its identity: a resumed run skips it.
struct BaselineRecord {
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  std::string library;  // "clblast", "cublas", "cudnn", ... (lower case)
  std::string routine;  // "Sgemm", "Convgemm", an algorithm name
  std::string status = "ok";  // one of kBaselineStatuses
  std::vector<double> samples_ms;  // raw timings, stored as a JSON array
  std::optional<double> median_ms;
  std::optional<double> spread;  // relative: (p75 - p25) / median
  std::optional<double> gflops;
  std::optional<double> max_error;  // against the reference implementation
  std::string error_text;
  std::string library_version;  // e.g. "1.6.3"; "" when unknown
};

}  // namespace results_db
