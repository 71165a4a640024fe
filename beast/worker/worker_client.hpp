// WorkerClient: the tuner's side of one device. Sends each rendered instance
// to a device worker process and turns whatever happens into an Outcome: the
// worker's reply, `crashed` when the worker dies (its signal or exit code in
// error_text), `timeout` when it runs past its TimeLimit (the worker is
// SIGKILLed). A dead or killed worker is replaced by a fresh one before the
// next config. Never blocks without a deadline.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "beast/core/error.hpp"
#include "beast/problem/device.hpp"
#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/device_calls.hpp"
#include "beast/worker/instance_measure.hpp"
#include "beast/worker/worker_process.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "beast/worker/worker_time_limit.hpp"

namespace beast {

// The tuner's decision on a built kernel: a reason not to run it (a
// post-compile constraint it fails), or nullopt.
using PostCompileCheck = std::function<std::optional<std::string>(const CompiledResources&)>;

// The device worker could not make a problem's inputs and reference: it
// ran past the setup limit or died doing it, for a config (twice), a
// baseline or a confirmation. No config is to blame and none of the
// problem's can be measured: the run stops (what it measured is kept)
// rather than record each config a failure at the cost of the whole limit.
class ProblemSetupFailed : public Error {
 public:
  explicit ProblemSetupFailed(const std::string& why) : Error(ErrorCode::kProblemSetup, why) {}
};

class WorkerClient : public DeviceCalls {
 public:
  // `executable` is the beast binary (run as `beast worker`); `device_name`
  // is what the tuner resolved <backend>:<device_index> to, checked against
  // what the worker opens. With a `cache_dir`, the worker builds programs
  // through that program cache (harness/program_cache.hpp).
  WorkerClient(std::string executable, Backend backend, int device_index, std::string device_name,
               std::string cache_dir = "");

  // Starts the first worker and waits until it has opened the device.
  // Returns false when *stop turned true first. Throws Error(kEnvironment)
  // when the worker cannot start or open the device (the message says why),
  // Error(kInternal) when it is not the worker of this beast or device.
  bool Start(const std::atomic<bool>& stop);

  // The limit of making a problem's inputs and reference, for every request
  // that has a problem (the tuner's: --setup-seconds or --timeout-seconds,
  // whichever is longer; a baseline's own longer limit does not stretch it).
  // Past it, or when the worker dies doing it, Measure, MeasureBaseline and
  // Confirm throw ProblemSetupFailed.
  void SetSetupSeconds(double seconds) { setup_seconds_ = seconds; }

  // Measures one instance. nullopt when `stop` turned true before the
  // outcome: the worker is killed and the config stays unmeasured. Throws
  // like Start when a replacement worker cannot start, and Error(kInternal)
  // for a worker that breaks the protocol. With `check` (post-compile
  // constraints in force) the worker waits after the build for its verdict
  // on the kernel's resources; a rejected kernel comes back
  // pruned_after_compile without running. Every outcome carries the
  // resources the worker reported, if it got that far.
  std::optional<Outcome> Measure(const MeasureRequest& request, const TimeLimit& limit,
                                 const std::atomic<bool>& stop,
                                 const PostCompileCheck& check = nullptr);

  // Runs a vendor library's routine for a problem in the worker. nullopt when
  // `stop` turned true first. A worker that dies comes back `crashed`, one
  // that runs past `timeout_seconds` `timeout` (its routine set to `routine`).
  std::optional<harness::BaselineResult> MeasureBaseline(const BaselineRequest& request,
                                                         const std::string& routine,
                                                         double timeout_seconds,
                                                         const std::atomic<bool>& stop) override;

  // The peak FLOP/s microbenchmark in the worker; a dead or hung worker comes
  // back not ok with the reason. nullopt when `stop` turned true first.
  std::optional<harness::PeakFlopsResult> MeasurePeak(const PeakRequest& request,
                                                      double timeout_seconds,
                                                      const std::atomic<bool>& stop);

  // Re-measures a pair's top configs interleaved (confirm_measure.hpp), one
  // result per candidate. nullopt when `stop` turned true first. A worker
  // that dies or runs past `timeout_seconds` gives every candidate the status
  // `crashed` or `timeout` with the reason.
  std::optional<std::vector<ConfirmResult>> Confirm(const ConfirmRequest& request,
                                                    double timeout_seconds,
                                                    const std::atomic<bool>& stop) override;

  // SIGKILLs the current worker, if any (a run that stops).
  void Stop();

  // Workers started to replace one that crashed, hung or left.
  int restarts() const { return restarts_; }

 private:
  // How one request ended: the worker's reply, or what happened instead.
  struct Reply {
    enum Kind { kPayload, kCrashed, kTimeout, kStopped };
    Reply(Kind k) : kind(k) {}  // NOLINT: `return {Reply::kStopped};` reads well
    Kind kind;
    std::string payload;               // kPayload: the reply frame
    std::string why;                   // kCrashed, kTimeout: for error_text
    std::optional<double> compile_ms;  // when the worker said it built a kernel
    CompiledResources resources;       // what it reported then
    bool in_setup = false;  // kCrashed, kTimeout: before the problem was ready (`why` says so)
  };
  // Sends `request` to a worker (starting one if needed; once more to a fresh
  // one when the worker left before taking it) and waits for the reply.
  // `crash_context` completes "the device worker was killed by ... <context>";
  // empty: "while building it" or "while running the kernel".
  // `check`, when set, answers the worker's kBuilt with a kVerdict.
  Reply Request(const std::string& request, const TimeLimit& limit, const std::atomic<bool>& stop,
                const std::string& crash_context = "", const PostCompileCheck& check = nullptr);
  Reply Exchange(const std::string& request, const TimeLimit& limit, const std::atomic<bool>& stop,
                 const std::string& crash_context, const PostCompileCheck& check, bool* not_taken);
  // Reaps a worker that closed its end and says how it ended.
  std::string CrashText(const std::string& context);
  // Lets go of a worker that announced it leaves.
  void Retire();
  // `limit` with this client's setup limit (when the request has a problem).
  TimeLimit WithSetup(TimeLimit limit) const;
  // Throws ProblemSetupFailed when `reply` ended while `problem_key` was
  // being made.
  void ThrowIfSetupFailed(const Reply& reply, const std::string& problem_key) const;

  std::string executable_;
  Backend backend_;
  int device_index_;
  std::string device_name_;
  std::string cache_dir_;
  std::unique_ptr<WorkerProcess> process_;
  bool started_once_ = false;
  int restarts_ = 0;
  double setup_seconds_ = kProblemSetupSeconds;
};

}  // namespace beast
