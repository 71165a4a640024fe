// The device worker (`beast worker`, started by the tuner): opens one OpenCL
// device, then builds, validates and times each instance the tuner sends,
// replying with its Outcome. Kernels run in this process so that one which
// crashes or hangs takes only the worker with it (the tuner records it and
// starts another). Inputs and references are made once per problem and kept.
// Vendor-library baselines, the peak FLOP/s microbenchmark and the
// re-measurement that confirms a pair's winner run here too, for the same
// reason.
#include <signal.h>

#include <functional>
#include <map>
#include <memory>

#include "baseline_measure.hpp"
#include "beast/error.hpp"
#include "beast/problem.hpp"
#include "beast/tuner.hpp"
#include "confirm_measure.hpp"
#include "harness/opencl_context.hpp"
#include "harness/peak_flops.hpp"
#include "harness/program_cache.hpp"
#include "instance_measure.hpp"
#include "problem_data.hpp"
#include "worker_protocol.hpp"

namespace beast {
namespace {

// A reply to a tuner that stopped reading for this long is given up: the
// tuner is gone or stuck, and the worker leaves.
constexpr auto kReplyPatience = std::chrono::minutes(10);

bool Reply(int fd, const std::string& payload) {
  return WriteFrame(fd, payload, std::chrono::steady_clock::now() + kReplyPatience);
}

struct CachedProblem {
  ProblemData data;
  DeviceProblem device;
};

// After a kernel failed at run time the device may be unusable (a lost
// context on a GPU fails every later call). A fill and a small read tell;
// when they fail the failure is the kernel's, recorded as a crash, and the
// worker leaves so the tuner starts a fresh one for the next config.
bool DeviceStillWorks(harness::OpenCLContext& context, const DeviceProblem& problem) {
  try {
    float probe = 0;
    context.Fill(problem.output, 0xFF);
    context.Read(problem.output, &probe, sizeof probe);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

using ProblemLookup = std::function<CachedProblem*(const std::string& key)>;

// A baseline request: the library runs on the problem's buffers. Like a
// kernel, a library that loses the device is recorded `crashed` and the worker
// leaves (*exit_code 3). False when the tuner is gone.
bool ServeBaseline(harness::OpenCLContext& context, const BaselineRequest& request,
                   const ProblemLookup& problem_for, int fd, int* exit_code) {
  harness::BaselineResult result;
  bool exits = false;
  try {
    CachedProblem* problem = problem_for(request.problem_key);
    result = MeasureBaseline(context, Problem::Parse(request.problem_key), problem->device,
                             request.library, request.plan);
    if (result.status == "runtime_error" && !DeviceStillWorks(context, problem->device)) {
      result.status = "crashed";
      result.error_text = "the device context was lost: " + result.error_text;
      exits = true;
    }
  } catch (const std::exception& e) {
    std::string routine = result.routine;
    result = harness::BaselineResult{};
    result.routine = routine;
    result.status = "crashed";
    result.error_text = std::string("the device failed: ") + e.what();
    exits = true;
  }
  if (!Reply(fd, EncodeBaselineResult(result, exits))) return false;
  if (exits) *exit_code = 3;
  return true;
}

// The peak FLOP/s microbenchmark; a failure is reported, a lost device ends
// the worker.
bool ServePeak(harness::OpenCLContext& context, const harness::BenchmarkPlan& plan, int fd,
               int* exit_code) {
  harness::PeakFlopsResult result;
  bool exits = false;
  try {
    result = harness::MeasurePeakFlops(context, plan);
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
bool ServeConfirm(harness::OpenCLContext& context, const ConfirmRequest& request,
                  const ProblemLookup& problem_for, int fd, int* exit_code) {
  std::vector<ConfirmResult> results;
  bool exits = false;
  try {
    CachedProblem* problem = problem_for(request.problem_key);
    results = ConfirmInstances(context, problem->device, request.candidates, request.plan);
    for (const ConfirmResult& r : results)
      exits = exits || (r.status == "runtime_error" && !DeviceStillWorks(context, problem->device));
  } catch (const std::exception& e) {
    exits = true;
    results.assign(request.candidates.size(), ConfirmResult{});
    for (ConfirmResult& r : results) {
      r.status = "crashed";
      r.error_text = std::string("the device failed: ") + e.what();
    }
  }
  if (!Reply(fd, EncodeConfirmResults(results, exits))) return false;
  if (exits) *exit_code = 3;
  return true;
}

}  // namespace

int RunDeviceWorker(int device_index, int fd, const std::string& cache_dir) {
  // Ctrl-C reaches the whole process group; the tuner decides what to stop.
  signal(SIGINT, SIG_IGN);
  std::unique_ptr<harness::OpenCLContext> context;
  try {
    context = std::make_unique<harness::OpenCLContext>(device_index);
    if (!cache_dir.empty())
      context->UseProgramCache(std::make_shared<harness::ProgramCache>(cache_dir));
  } catch (const std::exception& e) {
    Reply(fd, EncodeFatal(e.what()));
    return 1;
  }
  if (!Reply(fd, EncodeReady({kWorkerProtocolVersion, context->device().name}))) return 0;
  int exits_code = 0;

  std::map<std::string, std::unique_ptr<CachedProblem>> problems;
  // Inputs and reference are made once per problem and shared by its kernels
  // and its baselines.
  auto problem_for = [&](const std::string& key) -> CachedProblem* {
    auto& cached = problems[key];
    if (!cached) {
      auto fresh = std::make_unique<CachedProblem>();
      fresh->data = MakeProblemData(Problem::Parse(key));
      fresh->device = UploadProblem(*context, fresh->data);
      cached = std::move(fresh);
    }
    return cached.get();
  };
  std::string payload;
  while (ReadFrame(fd, &payload)) {
    if (IsConfirmRequest(payload)) {
      if (!ServeConfirm(*context, DecodeConfirm(payload), problem_for, fd, &exits_code)) return 0;
      if (exits_code) return exits_code;
      continue;
    }
    WorkerMessage kind = MessageKind(payload);
    if (kind == WorkerMessage::kBaseline) {
      if (!ServeBaseline(*context, DecodeBaseline(payload), problem_for, fd, &exits_code)) return 0;
      if (exits_code) return exits_code;
      continue;
    }
    if (kind == WorkerMessage::kPeak) {
      if (!ServePeak(*context, DecodePeak(payload), fd, &exits_code)) return 0;
      if (exits_code) return exits_code;
      continue;
    }
    MeasureRequest request = DecodeMeasure(payload);
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
    CachedProblem* problem = nullptr;
    try {
      problem = problem_for(request.problem_key);
      outcome = MeasureInstance(*context, problem->device, request.source, request.kernel_name,
                                request.geometry, request.plan, on_built);
      if (outcome.status == "runtime_error" && !DeviceStillWorks(*context, problem->device)) {
        outcome.status = "crashed";
        outcome.error_text = "the device context was lost: " + outcome.error_text;
        exits = true;
      }
    } catch (const std::exception& e) {
      // Only a device that stopped working throws out of MeasureInstance.
      outcome = Outcome{};
      outcome.status = "crashed";
      outcome.compile_ms = compile_ms;
      outcome.resources = resources;
      outcome.error_text = std::string("the device failed: ") + e.what();
      exits = true;
    }
    if (!Reply(fd, EncodeOutcome(outcome, exits))) return 0;  // the tuner is gone
    if (exits) return 3;
  }
  return 0;
}

}  // namespace beast
