// The tuner's side of a device worker (worker_client.hpp).
#include "worker_client.hpp"

#include <algorithm>

#include "beast/error.hpp"

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

WorkerClient::WorkerClient(std::string executable, int device_index, std::string device_name)
    : executable_(std::move(executable)),
      device_index_(device_index),
      device_name_(std::move(device_name)) {}

bool WorkerClient::Start(const std::atomic<bool>& stop) {
  const std::string device = "opencl:" + std::to_string(device_index_);
  auto process = std::make_unique<WorkerProcess>(executable_, device_index_);
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

void WorkerClient::Stop() {
  if (process_) process_->Kill();
  process_.reset();
}

std::optional<Outcome> WorkerClient::Measure(const MeasureRequest& request, const TimeLimit& limit,
                                             const std::atomic<bool>& stop) {
  // A worker that left while idle (not this config's doing) is replaced and
  // the request sent again, once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!process_ && !Start(stop)) return std::nullopt;
    bool not_taken = false;
    std::optional<Outcome> outcome = Exchange(request, limit, stop, &not_taken);
    if (!not_taken) return outcome;
    process_->Reap();
    process_.reset();
  }
  Outcome out = Crashed(false, std::nullopt);
  out.error_text = "two fresh device workers in a row closed before taking the request";
  return out;
}

std::optional<Outcome> WorkerClient::Exchange(const MeasureRequest& request, const TimeLimit& limit,
                                              const std::atomic<bool>& stop, bool* not_taken) {
  const Clock::time_point sent = Clock::now();
  const Clock::time_point absolute = After(sent, limit.timeout_seconds);
  process_->ForgetStderr();
  if (!process_->Send(EncodeMeasure(request), absolute)) {
    *not_taken = true;
    return std::nullopt;
  }
  bool built = false;
  std::optional<double> compile_ms;
  std::optional<double> run_limit;
  Clock::time_point built_at;
  std::string payload;
  while (true) {
    Clock::time_point deadline = absolute;
    if (run_limit) deadline = std::min(deadline, After(built_at, *run_limit));
    switch (process_->Receive(&payload, deadline, &stop)) {
      case WorkerProcess::Wait::kStopped:
        Stop();
        return std::nullopt;
      case WorkerProcess::Wait::kGone: {
        Outcome out = Crashed(built, compile_ms);
        process_.reset();
        return out;
      }
      case WorkerProcess::Wait::kDeadline: {
        process_->Kill();
        process_.reset();
        Outcome out;
        out.status = "timeout";
        out.compile_ms = compile_ms;
        bool by_run = run_limit && deadline < absolute;
        out.error_text = by_run ? limit.DescribeRun(*compile_ms, SecondsSince(built_at))
                                : limit.DescribeAbsolute(SecondsSince(sent));
        return out;
      }
      case WorkerProcess::Wait::kFrame:
        break;
    }
    WorkerMessage kind = MessageKind(payload);
    if (kind == WorkerMessage::kBuilt && !built) {
      built = true;
      built_at = Clock::now();
      compile_ms = DecodeBuilt(payload);
      run_limit = limit.RunSeconds(*compile_ms);
      continue;
    }
    bool exits = false;
    Outcome out = DecodeOutcome(payload, &exits);  // throws for any other message
    if (exits) {
      process_->Reap();  // it said it leaves: wait for that, so the next config gets a fresh one
      process_.reset();
    }
    return out;
  }
}

Outcome WorkerClient::Crashed(bool built, std::optional<double> compile_ms) {
  Outcome out;
  out.status = "crashed";
  out.compile_ms = compile_ms;
  if (!process_) return out;
  std::string how = process_->Reap();
  std::string words = process_->LastStderrLine();
  out.error_text = "the device worker " + how +
                   (built ? " while running the kernel" : " while building it") +
                   (words.empty() ? "" : "; its last output: " + words);
  return out;
}

}  // namespace beast
