// The tuner's side of a device worker (worker_client.hpp).
#include "beast/worker/worker_client.hpp"

#include <algorithm>

#include "beast/core/error.hpp"

namespace beast {
namespace {

using Clock = WorkerProcess::Clock;

// Opening an OpenCL device takes well under a second; a minute means the
// runtime is stuck.
constexpr auto kStartTimeout = std::chrono::seconds(60);

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Clock::time_point After(Clock::time_point t, double seconds) {
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

WorkerClient::WorkerClient(std::string executable, Backend backend, int device_index,
                           std::string device_name, std::string cache_dir)
    : executable_(std::move(executable)),
      backend_(backend),
      device_index_(device_index),
      device_name_(std::move(device_name)),
      cache_dir_(std::move(cache_dir)) {}

bool WorkerClient::Start(const std::atomic<bool>& stop) {
  const std::string device =
      std::string(BackendName(backend_)) + ":" + std::to_string(device_index_);
  std::vector<std::string> extra = {"--backend", BackendName(backend_)};
  if (!cache_dir_.empty()) extra.insert(extra.end(), {"--cache-dir", cache_dir_});
  auto process = std::make_unique<WorkerProcess>(executable_, device_index_, extra);
  std::string payload;
  switch (process->Receive(&payload, Clock::now() + kStartTimeout, &stop)) {
    case WorkerProcess::Wait::kStopped:
      process->Kill();
      return false;
    case WorkerProcess::Wait::kDeadline:
      process->Kill();
      throw Error(ErrorCode::kEnvironment, "the device worker did not open " + device + " within " +
                                               std::to_string(kStartTimeout.count()) + " s");
    case WorkerProcess::Wait::kGone: {
      std::string how = process->Reap();
      std::string words = process->LastStderrLine();
      throw Error(ErrorCode::kEnvironment, "the device worker " + how + " before it opened " +
                                               device + (words.empty() ? "" : ": " + words));
    }
    case WorkerProcess::Wait::kFrame:
      break;
  }
  if (MessageKind(payload) == WorkerMessage::kFatal) {
    process->Reap();
    throw Error(ErrorCode::kEnvironment,
                "the device worker cannot open " + device + ": " + DecodeFatal(payload));
  }
  WorkerReady ready = DecodeReady(payload);
  if (ready.protocol_version != kWorkerProtocolVersion) {
    throw Error(ErrorCode::kInternal, "the device worker " + executable_ + " speaks protocol " +
                                          std::to_string(ready.protocol_version) + ", this beast " +
                                          std::to_string(kWorkerProtocolVersion) +
                                          " (another build?)");
  }
  if (ready.device_name != device_name_) {
    throw Error(ErrorCode::kInternal, "the device worker opened \"" + ready.device_name + "\" as " +
                                          device + ", the tuner knows it as \"" + device_name_ +
                                          "\"");
  }
  process_ = std::move(process);
  if (started_once_) ++restarts_;
  started_once_ = true;
  return true;
}

TimeLimit WorkerClient::WithSetup(TimeLimit limit) const {
  if (limit.setup_seconds) limit.setup_seconds = setup_seconds_;
  return limit;
}

void WorkerClient::ThrowIfSetupFailed(const Reply& reply, const std::string& problem_key) const {
  if (!reply.in_setup || (reply.kind != Reply::kTimeout && reply.kind != Reply::kCrashed)) return;
  throw ProblemSetupFailed(
      problem_key +
      ": the device worker could not make the problem's inputs and reference: " + reply.why +
      (reply.kind == Reply::kTimeout ? " (raise --setup-seconds, or leave the problem out; what "
                                       "was measured is kept)"
                                     : " (leave the problem out, or give the host more memory; "
                                       "what was measured is kept)"));
}

void WorkerClient::Stop() {
  if (process_) process_->Kill();
  process_.reset();
}

std::optional<Outcome> WorkerClient::Measure(const MeasureRequest& request, const TimeLimit& limit,
                                             const std::atomic<bool>& stop,
                                             const PostCompileCheck& check) {
  MeasureRequest sent = request;
  sent.await_verdict = check != nullptr;
  const std::string encoded = EncodeMeasure(sent);
  const TimeLimit with_setup = WithSetup(limit);
  Reply reply = Request(encoded, with_setup, stop, "", check);
  // A death while the problem was being made is the problem's, not the
  // config's: it makes the problem once more before the config is charged.
  if (reply.kind == Reply::kCrashed && reply.in_setup)
    reply = Request(encoded, with_setup, stop, "", check);
  int attempts = 1;
  std::string first_death;
  if (reply.kind == Reply::kCrashed && !reply.in_setup) {
    // A worker also dies of what the kernel did not do (the OOM killer, an
    // operator's kill -9, a driver reset by another process): the config is
    // measured once more, alone, in a fresh worker; only a second death is
    // recorded as the config's.
    first_death = reply.why;
    attempts = 2;
    reply = Request(encoded, with_setup, stop, "", check);
  }
  ThrowIfSetupFailed(reply, request.problem_key);
  Outcome out;
  switch (reply.kind) {
    case Reply::kStopped:
      return std::nullopt;
    case Reply::kTimeout:
    case Reply::kCrashed:
      out.status = reply.kind == Reply::kTimeout ? Status::kTimeout : Status::kCrashed;
      out.compile_ms = reply.compile_ms;
      out.resources = reply.resources;
      out.error_text = reply.why;
      if (reply.kind == Reply::kCrashed && attempts == 2)
        out.error_text = "twice in a row: " + reply.why + " (first attempt: " + first_death + ")";
      break;
    case Reply::kPayload: {
      bool exits = false;
      out = DecodeOutcome(reply.payload, &exits);  // throws for any other message
      if (exits) Retire();
      break;
    }
  }
  out.attempts = attempts;
  return out;
}

std::optional<harness::BaselineResult> WorkerClient::MeasureBaseline(
    const BaselineRequest& request, const std::string& routine, double timeout_seconds,
    const std::atomic<bool>& stop) {
  TimeLimit limit;
  limit.timeout_seconds = timeout_seconds;
  Reply reply =
      Request(EncodeBaseline(request), WithSetup(limit), stop, "while running " + request.library);
  if (reply.kind == Reply::kStopped) return std::nullopt;
  ThrowIfSetupFailed(reply, request.problem_key);
  if (reply.kind != Reply::kPayload) {
    harness::BaselineResult out;
    out.routine = routine;
    out.status = reply.kind == Reply::kTimeout ? Status::kTimeout : Status::kCrashed;
    out.error_text = reply.kind == Reply::kTimeout
                         ? "killed after " + std::to_string(static_cast<int>(timeout_seconds)) +
                               " s: past the limit of a baseline"
                         : reply.why;
    return out;
  }
  bool exits = false;
  harness::BaselineResult out = DecodeBaselineResult(reply.payload, &exits);
  if (exits) Retire();
  return out;
}

std::optional<harness::PeakFlopsResult> WorkerClient::MeasurePeak(const PeakRequest& request,
                                                                  double timeout_seconds,
                                                                  const std::atomic<bool>& stop) {
  TimeLimit limit;
  limit.timeout_seconds = timeout_seconds;
  limit.setup_seconds.reset();  // no problem to make
  Reply reply = Request(EncodePeak(request), limit, stop, "while measuring the peak FLOP/s");
  if (reply.kind == Reply::kStopped) return std::nullopt;
  if (reply.kind != Reply::kPayload) {
    harness::PeakFlopsResult out;
    out.error = reply.kind == Reply::kTimeout
                    ? "the peak microbenchmark ran past " +
                          std::to_string(static_cast<int>(timeout_seconds)) + " s"
                    : reply.why;
    return out;
  }
  bool exits = false;
  harness::PeakFlopsResult out = DecodePeakResult(reply.payload, &exits);
  if (exits) Retire();
  return out;
}

std::optional<std::vector<ConfirmResult>> WorkerClient::Confirm(const ConfirmRequest& request,
                                                                double timeout_seconds,
                                                                const std::atomic<bool>& stop) {
  TimeLimit limit;
  limit.timeout_seconds = timeout_seconds;
  Reply reply =
      Request(EncodeConfirm(request), WithSetup(limit), stop, "while re-measuring the top configs");
  if (reply.kind == Reply::kStopped) return std::nullopt;
  ThrowIfSetupFailed(reply, request.problem_key);
  if (reply.kind != Reply::kPayload) {
    ConfirmResult failed;
    failed.status = reply.kind == Reply::kTimeout ? Status::kTimeout : Status::kCrashed;
    failed.error_text = reply.kind == Reply::kTimeout
                            ? "the re-measurement ran past " +
                                  std::to_string(static_cast<int>(timeout_seconds)) + " s"
                            : reply.why;
    return std::vector<ConfirmResult>(request.candidates.size(), failed);
  }
  bool exits = false;
  std::vector<ConfirmResult> results = DecodeConfirmResults(reply.payload, &exits);
  if (exits) Retire();
  return results;
}

void WorkerClient::Retire() {
  // It said it leaves: wait for that, so the next request gets a fresh one.
  if (process_) process_->Reap();
  process_.reset();
}

WorkerClient::Reply WorkerClient::Request(const std::string& payload, const TimeLimit& limit,
                                          const std::atomic<bool>& stop,
                                          const std::string& crash_context,
                                          const PostCompileCheck& check) {
  // A worker that left while idle (not this request's doing) is replaced and
  // the request sent again, once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    // A worker that died while idle (killed from outside) costs nothing: a
    // fresh one takes the request.
    if (process_ && process_->Exited()) process_.reset();
    if (!process_ && !Start(stop)) return {Reply::kStopped};
    bool not_taken = false;
    Reply reply = Exchange(payload, limit, stop, crash_context, check, &not_taken);
    if (!not_taken) return reply;
    process_->Reap();
    process_.reset();
  }
  Reply reply{Reply::kCrashed};
  reply.why = "two fresh device workers in a row closed before taking the request";
  return reply;
}

WorkerClient::Reply WorkerClient::Exchange(const std::string& request, const TimeLimit& limit,
                                           const std::atomic<bool>& stop,
                                           const std::string& crash_context,
                                           const PostCompileCheck& check, bool* not_taken) {
  Clock::time_point sent = Clock::now();
  // Until the worker says the problem is ready only the setup's limit holds;
  // the config's own limits start then (worker_time_limit.hpp).
  bool ready = !limit.setup_seconds;
  Clock::time_point absolute = After(sent, limit.SetupSeconds());
  Clock::duration stopped = process_->stopped();  // moves the times below when it grows
  process_->ForgetStderr();
  if (!process_->Send(request, absolute)) {
    *not_taken = true;
    return {Reply::kStopped};
  }
  bool built = false;
  std::optional<double> compile_ms;
  CompiledResources resources;
  std::optional<double> run_limit;
  Clock::time_point built_at;
  std::string payload;
  while (true) {
    Clock::time_point deadline = absolute;
    if (run_limit) deadline = std::min(deadline, After(built_at, *run_limit));
    const WorkerProcess::Wait wait = process_->Receive(&payload, deadline, &stop);
    // Time the processes stood stopped counts against no limit.
    const Clock::duration paused = process_->stopped() - stopped;
    stopped += paused;
    sent += paused;
    absolute += paused;
    built_at += paused;
    switch (wait) {
      case WorkerProcess::Wait::kStopped:
        Stop();
        return {Reply::kStopped};
      case WorkerProcess::Wait::kGone: {
        Reply reply{Reply::kCrashed};
        reply.compile_ms = compile_ms;
        reply.resources = resources;
        reply.in_setup = !ready;
        reply.why = CrashText(!ready ? "while making the problem's inputs and reference"
                              : crash_context.empty()
                                  ? (built ? "while running the kernel" : "while building it")
                                  : crash_context);
        process_.reset();
        return reply;
      }
      case WorkerProcess::Wait::kDeadline: {
        process_->Kill();
        process_.reset();
        Reply reply{Reply::kTimeout};
        reply.compile_ms = compile_ms;
        reply.resources = resources;
        reply.in_setup = !ready;
        // The deadlines as moved back by any time stood stopped.
        const bool by_run = run_limit && After(built_at, *run_limit) < absolute;
        reply.why = !ready   ? limit.DescribeSetup(SecondsSince(sent))
                    : by_run ? limit.DescribeRun(*compile_ms, SecondsSince(built_at))
                             : limit.DescribeAbsolute(SecondsSince(sent));
        return reply;
      }
      case WorkerProcess::Wait::kFrame:
        break;
    }
    // By its first byte: replies of other protocols (confirm_protocol.hpp)
    // pass through to the caller, which decodes them.
    if (!ready && !payload.empty() &&
        static_cast<uint8_t>(payload[0]) == static_cast<uint8_t>(WorkerMessage::kProblemReady)) {
      DecodeProblemReady(payload);  // checks its shape
      ready = true;
      sent = Clock::now();
      absolute = After(sent, limit.timeout_seconds);
      continue;
    }
    if (!built && !payload.empty() &&
        static_cast<uint8_t>(payload[0]) == static_cast<uint8_t>(WorkerMessage::kBuilt)) {
      built = true;
      built_at = Clock::now();
      BuiltReport report = DecodeBuilt(payload);
      compile_ms = report.compile_ms;
      resources = report.resources;
      run_limit = limit.RunSeconds(*compile_ms);
      // A worker that left before the verdict shows up on the next receive.
      if (check) process_->Send(EncodeVerdict(check(resources)), absolute);
      continue;
    }
    Reply reply{Reply::kPayload};
    reply.payload = std::move(payload);
    reply.compile_ms = compile_ms;
    reply.resources = resources;
    return reply;
  }
}

std::string WorkerClient::CrashText(const std::string& context) {
  if (!process_) return "";
  std::string how = process_->Reap();
  std::string words = process_->LastStderrLine();
  return "the device worker " + how + " " + context +
         (words.empty() ? "" : "; its last output: " + words);
}

}  // namespace beast
