// The tuner's side of baselines and peak FLOP/s: which library a run
// compares with, measuring each problem's baseline once per device (a resumed
// run finds it in the database), recording every outcome, and the device's
// measured peak in its limits JSON. The library calls and the microbenchmark
// run in the device worker, like kernels.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/baseline_measure.hpp"
#include "beast/worker/worker_client.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"
#include "results_db/store.hpp"

namespace beast {

// The baseline set TuneOptions::baselines names for `device`: "clblast"
// (OpenCL), "nvidia" (cuBLAS and cuDNN, CUDA) or "" (none); "auto" is the
// device's own. Throws Error(kBadArgument) for an unknown name, "clblast"
// asked of a beast built without CLBlast or of a CUDA device, "nvidia" of
// an OpenCL one.
std::string ResolveBaselineLibrary(const std::string& option, const DeviceInfo& device);

// The library and routine of `set` that computes `problem`, and why not when
// it cannot (the baseline is then recorded unsupported without a call).
struct BaselineChoice {
  std::string library;  // "clblast", "cublas", "cudnn"
  std::string routine;  // "Sgemm", "Convgemm", "cublasSgemm", "cudnnConvolutionForward"
  std::string why_not;
};
BaselineChoice BaselineFor(const std::string& set, const Problem& problem);

// "CLBlast", "cuBLAS", "cuDNN": how tables name a library.
std::string LibraryDisplayName(const std::string& library);
// Its version, as the database records it; "" when unknown.
std::string LibraryVersion(const std::string& library);

// The device limits JSON with the measured peak added under
// "peak_gflops_measured" and how it was measured under "peak_method", and
// the measured memory bandwidth under "bandwidth_gbs_measured" and
// "bandwidth_method" (the database keeps them with the device); unchanged
// when neither is known.
std::string LimitsWithMeasuredPeak(const std::string& limits_json,
                                   const harness::PeakFlopsResult& peak);

struct BaselineRunContext {
  DeviceCalls& worker;  // the local device worker, or a rank of an MPI run
  results_db::Store& store;
  int64_t device_id;
  int64_t run_id;
  harness::BenchmarkPlan plan;
  double timeout_seconds;  // per baseline, CLBlast's first-call compile included
  bool progress;           // one line per baseline on stderr
};

// For each problem (in order, each once): the library's baseline from the
// database, or measured now in the worker and recorded (unsupported problems
// are recorded as such without a call). Stops early, leaving the rest
// unmeasured, when `stop` turns true.
std::vector<BaselineSummary> EnsureBaselines(BaselineRunContext& context,
                                             const std::vector<const Problem*>& problems,
                                             const std::string& set, const std::atomic<bool>& stop);

// The run's baselines: `library`'s (none when empty) for each problem of
// `pairs`, once, before its kernels (an interrupted run still has them).
std::vector<BaselineSummary> MeasureRunBaselines(const TuneOptions& options,
                                                 const std::string& library,
                                                 const std::vector<PlannedPair>& pairs,
                                                 BaselineRunContext context,
                                                 const std::atomic<bool>& stop);

// The fastest ok baseline of `library` on the device for the problem.
std::optional<results_db::BaselineRow> FastestBaseline(results_db::Store& store, int64_t device_id,
                                                       const std::string& problem_key,
                                                       const std::string& library);

}  // namespace beast
