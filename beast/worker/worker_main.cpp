// The device worker (`beast worker`, started by the tuner): opens one device
// (worker_device.hpp: OpenCL or CUDA), then builds, validates and times each
// instance the tuner sends, replying with its Outcome. Kernels run in this
// process so that one which crashes or hangs takes only the worker with it
// (the tuner records it and starts another). Vendor-library baselines, the
// peak FLOP/s microbenchmark and the re-measurement that confirms a pair's
// winner run here too, for the same reason.
#include <signal.h>

#include <chrono>
#include <memory>

#include "beast/core/error.hpp"
#include "beast/worker/device_worker.hpp"
#include "beast/worker/pocl_affinity.hpp"
#include "beast/worker/worker_device.hpp"
#include "beast/worker/worker_protocol.hpp"

namespace beast {
namespace {

// A reply to a tuner that stopped reading for this long is given up: the
// tuner is gone or stuck, and the worker leaves.
constexpr auto kReplyPatience = std::chrono::minutes(10);

bool Reply(int fd, const std::string& payload) {
  return WriteFrame(fd, payload, std::chrono::steady_clock::now() + kReplyPatience);
}

// Makes the request's problem (or finds it kept) and tells the tuner, whose
// time limit of the request starts then (worker_time_limit.hpp). False when
// the tuner is gone.
bool ProblemReady(WorkerDevice& device, const std::string& problem_key, int winograd_tile, int fd) {
  const auto start = std::chrono::steady_clock::now();
  device.Prepare(problem_key, winograd_tile);
  return Reply(
      fd, EncodeProblemReady(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
}

// A baseline request. Like a kernel, a library that loses the device is
// recorded `crashed` and the worker leaves (*exit_code 3). False when the
// tuner is gone.
bool ServeBaseline(WorkerDevice& device, const BaselineRequest& request, int fd, int* exit_code) {
  harness::BaselineResult result;
  bool exits = false;
  try {
    if (!ProblemReady(device, request.problem_key, 0, fd)) return false;
    result = device.Baseline(request);
    if (result.status == Status::kRuntimeError && !device.StillWorks(request.problem_key)) {
      result.status = Status::kCrashed;
      result.error_text = "the device context was lost: " + result.error_text;
      exits = true;
    }
  } catch (const std::exception& e) {
    std::string routine = result.routine;
    result = harness::BaselineResult{};
    result.routine = routine;
    result.status = Status::kCrashed;
    result.error_text = std::string("the device failed: ") + e.what();
    exits = true;
  }
  if (!Reply(fd, EncodeBaselineResult(result, exits))) return false;
  if (exits) *exit_code = 3;
  return true;
}

// The peak FLOP/s microbenchmark; a failure is reported, a lost device ends
// the worker (a variant that faulted leaves the context unusable while the
// result may still hold the variants before it: the next config must not
// be blamed for it).
bool ServePeak(WorkerDevice& device, const PeakRequest& request, int fd, int* exit_code) {
  harness::PeakFlopsResult result;
  bool exits = false;
  try {
    result = device.Peak(request);
    exits = !device.DeviceWorks();
  } catch (const std::exception& e) {
    result = harness::PeakFlopsResult{};
    result.error = std::string("the device failed: ") + e.what();
    exits = true;
  }
  if (!Reply(fd, EncodePeakResult(result, exits))) return false;
  if (exits) *exit_code = 3;
  return true;
}

// The interleaved re-measurement of a pair's top configs. Like a kernel, one
// that loses the device ends the worker (*exit_code 3) after its reply.
bool ServeConfirm(WorkerDevice& device, const ConfirmRequest& request, int fd, int* exit_code) {
  std::vector<ConfirmResult> results;
  bool exits = false;
  try {
    if (!ProblemReady(device, request.problem_key, 0, fd)) return false;
    results = device.Confirm(request);
    for (const ConfirmResult& r : results) {
      exits = exits || r.status == Status::kCrashed ||
              (r.status == Status::kRuntimeError && !device.StillWorks(request.problem_key));
    }
  } catch (const std::exception& e) {
    exits = true;
    results.assign(request.candidates.size(), ConfirmResult{});
    for (ConfirmResult& r : results) {
      r.status = Status::kCrashed;
      r.error_text = std::string("the device failed: ") + e.what();
    }
  }
  if (!Reply(fd, EncodeConfirmResults(results, exits))) return false;
  if (exits) *exit_code = 3;
  return true;
}

// One instance: build, (verdict,) validate, time. False when the tuner is
// gone; *exit_code 3 when the device is lost after it.
bool ServeMeasure(WorkerDevice& device, const MeasureRequest& request, int fd, int* exit_code) {
  Outcome outcome;
  bool exits = false;
  std::optional<double> compile_ms;
  CompiledResources resources;
  // Tells the tuner the kernel is built; when post-compile constraints are
  // in force the tuner answers whether it runs.
  auto on_built = [&](double ms, const CompiledResources& built) -> std::optional<std::string> {
    compile_ms = ms;
    resources = built;
    Reply(fd, EncodeBuilt({ms, built}));
    if (!request.await_verdict) return std::nullopt;
    std::string verdict;
    if (!ReadFrame(fd, &verdict)) return std::string("the tuner is gone");
    return DecodeVerdict(verdict);
  };
  try {
    if (!ProblemReady(device, request.problem_key, request.winograd_tile, fd)) return false;
    outcome = device.Measure(request, on_built);
    if (outcome.status == Status::kRuntimeError && !device.StillWorks(request.problem_key)) {
      outcome.status = Status::kCrashed;
      outcome.error_text = "the device context was lost: " + outcome.error_text;
      exits = true;
    }
  } catch (const std::exception& e) {
    // Only a device that stopped working throws out of Measure.
    outcome = Outcome{};
    outcome.status = Status::kCrashed;
    outcome.compile_ms = compile_ms;
    outcome.resources = resources;
    outcome.error_text = std::string("the device failed: ") + e.what();
    exits = true;
  }
  if (!Reply(fd, EncodeOutcome(outcome, exits))) return false;
  if (exits) *exit_code = 3;
  return true;
}

}  // namespace

std::unique_ptr<WorkerDevice> OpenWorkerDevice(Backend backend, int device_index,
                                               const std::string& cache_dir) {
  return backend == Backend::kCuda ? OpenCudaWorkerDevice(device_index, cache_dir)
                                   : OpenOpenCLWorkerDevice(device_index, cache_dir);
}

int RunDeviceWorker(Backend backend, int device_index, int fd, const std::string& cache_dir) {
  // Ctrl-C reaches the whole process group; the tuner decides what to stop.
  signal(SIGINT, SIG_IGN);
  // Before the OpenCL platform opens: PoCL reads its settings then.
  if (backend == Backend::kOpenCL) PinPoclThreadsWhereAlone();
  std::unique_ptr<WorkerDevice> device;
  try {
    device = OpenWorkerDevice(backend, device_index, cache_dir);
  } catch (const std::exception& e) {
    Reply(fd, EncodeFatal(e.what()));
    return 1;
  }
  if (!Reply(fd, EncodeReady({kWorkerProtocolVersion, device->device().name}))) return 0;
  int exit_code = 0;
  std::string payload;
  while (ReadFrame(fd, &payload)) {
    bool tuner_there = true;
    if (IsConfirmRequest(payload)) {
      tuner_there = ServeConfirm(*device, DecodeConfirm(payload), fd, &exit_code);
    } else {
      switch (MessageKind(payload)) {
        case WorkerMessage::kBaseline:
          tuner_there = ServeBaseline(*device, DecodeBaseline(payload), fd, &exit_code);
          break;
        case WorkerMessage::kPeak:
          tuner_there = ServePeak(*device, DecodePeak(payload), fd, &exit_code);
          break;
        default:
          tuner_there = ServeMeasure(*device, DecodeMeasure(payload), fd, &exit_code);
          break;
      }
    }
    if (!tuner_there) return 0;  // the tuner is gone
    if (exit_code) return exit_code;
  }
  return 0;
}

}  // namespace beast
