// The device worker (`beast worker`, started by the tuner): opens one OpenCL
// device, then builds, validates and times each instance the tuner sends,
// replying with its Outcome. Kernels run in this process so that one which
// crashes or hangs takes only the worker with it (the tuner records it and
// starts another). Inputs and references are made once per problem and kept.
#include <signal.h>

#include <map>
#include <memory>

#include "beast/error.hpp"
#include "beast/problem.hpp"
#include "beast/tuner.hpp"
#include "harness/opencl_context.hpp"
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

}  // namespace

int RunDeviceWorker(int device_index, int fd) {
  // Ctrl-C reaches the whole process group; the tuner decides what to stop.
  signal(SIGINT, SIG_IGN);
  std::unique_ptr<harness::OpenCLContext> context;
  try {
    context = std::make_unique<harness::OpenCLContext>(device_index);
  } catch (const std::exception& e) {
    Reply(fd, EncodeFatal(e.what()));
    return 1;
  }
  if (!Reply(fd, EncodeReady({kWorkerProtocolVersion, context->device().name}))) return 0;

  std::map<std::string, std::unique_ptr<CachedProblem>> problems;
  std::string payload;
  while (ReadFrame(fd, &payload)) {
    MeasureRequest request = DecodeMeasure(payload);
    Outcome outcome;
    bool exits = false;
    std::optional<double> compile_ms;
    CachedProblem* problem = nullptr;
    try {
      auto& cached = problems[request.problem_key];
      if (!cached) {
        cached = std::make_unique<CachedProblem>();
        cached->data = MakeProblemData(Problem::Parse(request.problem_key));
        cached->device = UploadProblem(*context, cached->data);
      }
      problem = cached.get();
      outcome = MeasureInstance(*context, problem->device, request.source, request.kernel_name,
                                request.geometry, request.plan, [&](double ms) {
                                  compile_ms = ms;
                                  Reply(fd, EncodeBuilt(ms));
                                });
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
      outcome.error_text = std::string("the device failed: ") + e.what();
      exits = true;
    }
    if (!Reply(fd, EncodeOutcome(outcome, exits))) return 0;  // the tuner is gone
    if (exits) return 3;
  }
  return 0;
}

}  // namespace beast
