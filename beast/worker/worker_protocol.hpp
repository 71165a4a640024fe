// The messages between the tuner and its device worker (frames of
// worker_wire.hpp). Each payload starts with a WorkerMessage byte.
//
//   worker -> tuner  kReady    once at start: protocol version, device name
//                    kFatal    instead of kReady: the device cannot be opened
//   tuner -> worker  kMeasure  one rendered instance to build, validate, time
//   worker -> tuner  kProblemReady  the problem's inputs and reference are
//                              made (or were kept): the config's own time
//                              limit starts here (also before a baseline
//                              and a confirmation, which use the problem)
//   worker -> tuner  kBuilt    the build succeeded (with the kernel's
//                              resources); the kernel runs next
//   tuner -> worker  kVerdict  only when the request awaits one: run the
//                              kernel, or not (a post-compile constraint
//                              rejects it, with the reason)
//                    kOutcome  the result; `worker_exits` when the device is
//                              unusable after it and the worker leaves
//   tuner -> worker  kBaseline a vendor library's routine on a problem
//   worker -> tuner  kBaselineResult  its result (and `worker_exits`)
//   tuner -> worker  kPeak     the peak FLOP/s microbenchmark
//   worker -> tuner  kPeakResult      its result (and `worker_exits`)
//
// One request is in flight at a time. The tuner closing its end tells the
// worker to exit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "beast/worker/instance_measure.hpp"
#include "beast/worker/worker_wire.hpp"
#include "harness/measure/baseline_result.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/opencl_kernel.hpp"

namespace beast {

// Raised whenever a message changes shape, so a worker from another build is
// refused at kReady instead of misreading requests.
constexpr int64_t kWorkerProtocolVersion = 10;

enum class WorkerMessage : uint8_t {
  kReady = 1,
  kFatal = 2,
  kMeasure = 3,
  kBuilt = 4,
  kOutcome = 5,
  kBaseline = 6,
  kBaselineResult = 7,
  kPeak = 8,
  kPeakResult = 9,
  kVerdict = 10,
  kProblemReady = 11
};

struct MeasureRequest {
  std::string
      problem_key;  // Problem::Key(); the worker builds (and keeps) its inputs and reference
  std::string source;
  std::string kernel_name;
  harness::LaunchGeometry geometry;
  harness::LaunchSequence stages;  // launches before the kernel, and their workspace
  harness::BenchmarkPlan plan;
  // The worker waits for a kVerdict after kBuilt (post-compile constraints
  // are in force): the tuner decides from the resources.
  bool await_verdict = false;
  // The kernel computes Winograd F(m x m, 3 x 3) with this m: its output is
  // checked against that algorithm's error bound; 0: the direct sum's.
  int winograd_tile = 0;
};

// What kBuilt reports.
struct BuiltReport {
  double compile_ms = 0;
  CompiledResources resources;
};

// The device's peaks: FLOP/s in fp32 and memory bandwidth always, fp64
// FLOP/s when asked (a run with f64 problems).
struct PeakRequest {
  harness::BenchmarkPlan plan;
  bool fp64 = false;
  // Bit i set: measure the tensor cores' peak for harness::TensorInput i
  // (the run has problems of that mma input type), where the device has them.
  int tensor_inputs = 0;
};

struct BaselineRequest {
  std::string problem_key;  // the worker reuses the problem's inputs and reference
  std::string library;      // "clblast"
  harness::BenchmarkPlan plan;
};

struct WorkerReady {
  int64_t protocol_version = 0;
  std::string device_name;
};

std::string EncodeReady(const WorkerReady& ready);
std::string EncodeFatal(const std::string& message);
std::string EncodeMeasure(const MeasureRequest& request);
std::string EncodeProblemReady(double setup_seconds);
std::string EncodeBuilt(const BuiltReport& built);
// A prune reason, or nullopt: run the kernel.
std::string EncodeVerdict(const std::optional<std::string>& prune_reason);
std::string EncodeOutcome(const Outcome& outcome, bool worker_exits);
std::string EncodeBaseline(const BaselineRequest& request);
std::string EncodeBaselineResult(const harness::BaselineResult& result, bool worker_exits);
std::string EncodePeak(const PeakRequest& request);
std::string EncodePeakResult(const harness::PeakFlopsResult& result, bool worker_exits);

// The kind of a payload; throws Error(kInternal) for an empty payload or an
// unknown kind.
WorkerMessage MessageKind(const std::string& payload);

// Each decoder checks the kind and that nothing is left over; a payload of
// another shape throws Error(kInternal, "worker protocol: ...").
WorkerReady DecodeReady(const std::string& payload);
std::string DecodeFatal(const std::string& payload);
MeasureRequest DecodeMeasure(const std::string& payload);
double DecodeProblemReady(const std::string& payload);
BuiltReport DecodeBuilt(const std::string& payload);
std::optional<std::string> DecodeVerdict(const std::string& payload);
Outcome DecodeOutcome(const std::string& payload, bool* worker_exits);
BaselineRequest DecodeBaseline(const std::string& payload);
harness::BaselineResult DecodeBaselineResult(const std::string& payload, bool* worker_exits);
PeakRequest DecodePeak(const std::string& payload);
harness::PeakFlopsResult DecodePeakResult(const std::string& payload, bool* worker_exits);

}  // namespace beast
