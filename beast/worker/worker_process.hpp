// WorkerProcess: one running device worker as the tuner sees it — a child
// process (`beast worker`) spoken to in frames over a Unix socket, its stderr
// collected, never waited on without a deadline. The child dies with the
// tuner (PR_SET_PDEATHSIG and end of stream), ignores Ctrl-C (the tuner
// decides) and writes no core dump.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "beast/core/child_process.hpp"
#include "beast/worker/worker_wire.hpp"

namespace beast {

class WorkerProcess {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts `executable VERB --device-index N --fd 3 EXTRA...`. Throws
  // Error(kEnvironment) when the process cannot be created or exec fails.
  WorkerProcess(const std::string& executable, int device_index,
                const std::vector<std::string>& extra_args = {},
                const std::string& verb = "worker");
  // Closes the socket (the worker's cue to exit), gives it a moment, then
  // SIGKILLs it; always reaps (ChildProcess).
  ~WorkerProcess() = default;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  enum class Wait { kFrame, kGone, kDeadline, kStopped };

  // Sends one frame; false when the worker is gone or did not take it by
  // the deadline.
  bool Send(const std::string& payload, Clock::time_point deadline);
  // Waits for the next frame until the deadline, or until *stop turns true
  // (checked at least every 100 ms); kGone when the worker closed its end.
  // Time this process was stopped meanwhile moves the deadline back (below).
  Wait Receive(std::string* payload, Clock::time_point deadline, const std::atomic<bool>* stop);

  // How long Receive found this process stopped, over its life
  // (beast/core/stopped_time.hpp). Ctrl-Z stops the tuner and its workers
  // alike (one process group), but the steady clock runs on: without this,
  // a kernel running when they stopped would be past its limit the moment
  // they went on, and recorded a timeout. A deadline taken before is moved
  // back by what this grew.
  Clock::duration stopped() const { return stopped_; }

  // SIGKILLs the worker (if still running) and reaps it.
  void Kill() { child_.Kill(); }
  // Reaps a worker that closed its end, waiting up to a grace period before
  // SIGKILL, and says how it ended: "was killed by signal 11 (Segmentation
  // fault)", "exited with code 3".
  std::string Reap() { return child_.Reap(); }
  // The last line the worker wrote on stderr (PoCL's or a runtime's last
  // words before a crash); empty when none.
  std::string LastStderrLine() const { return child_.LastOutputLine(); }
  // Forgets what stderr held, so the next crash is not blamed on old lines.
  void ForgetStderr() { child_.ForgetOutput(); }

  // True once the worker has exited (reaped; never blocks): one that died
  // while idle is replaced before a request is sent to it.
  bool Exited() { return child_.TryReap(); }

  pid_t pid() const { return child_.pid(); }

 private:
  ChildProcess child_;  // its socket carries frames both ways
  FrameBuffer frames_;
  Clock::duration stopped_{0};
};

}  // namespace beast
