// CompilePool: prepares (renders) the configs a run is about to measure and
// builds their programs into the program cache ahead of the device worker,
// which then loads them instead of compiling. `jobs` threads each drive one
// compile worker process (`beast worker --compile`), so a compiler that
// crashes or hangs costs only that worker: the pool restarts it and leaves the
// config to the device worker, which records whatever happens.
//
// Jobs are numbered in measuring order (more can be added as a search
// proposes them). The tuner takes them in that order;
// the pool works at most `window` jobs past the last one taken. Taking a job
// waits for the pool to build it, unless the pool cannot: it has no workers,
// they could not start, or it is paused; the job is then the tuner's to
// prepare (and the device worker's to build).
//
// Pause() stops the compile workers at once (SIGSTOP) and Resume() lets them
// go on; time paused does not count towards a build's time limit. The tuner
// pauses the pool while a CPU device times kernels on the cores the pool
// would compile on.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "beast/worker/instance_prepare.hpp"

namespace beast {

class WorkerProcess;

class CompilePool {
 public:
  struct Options {
    std::string executable;  // the beast binary
    // OpenCL: the workers open the device and build with its compiler. CUDA:
    // they compile with NVRTC for `arch` and open no device.
    Backend backend = Backend::kOpenCL;
    std::string arch;
    int device_index = 0;
    std::string cache_dir;
    int jobs = 1;
    size_t window = 8;
    double timeout_seconds = 60;  // per build, time paused not counted
    bool warm = false;            // CompileRequest::warm
  };

  // What the pool did for one job.
  enum class Built {
    kNone,       // nothing: it did not get to the job, or the job needs no build
    kCompiled,   // built now and stored (or the compiler rejected it, stored too)
    kCached,     // the cache already held it
    kNotStored,  // built now, but the cache could not take it
    kFailed,     // the compile worker crashed or ran past its limit
  };
  struct Taken {
    // False: the pool did not prepare this job; the caller prepares it.
    bool prepared = false;
    PreparedInstance instance;  // when prepared
    Built built = Built::kNone;
    double compile_ms = 0;  // kCompiled, kNotStored: the build's wall clock
  };
  // Prepares job i; called from the pool's threads. May throw: the job is then
  // left for the caller, whose own call will throw the same.
  using Prepare = std::function<PreparedInstance(size_t job)>;

  CompilePool(Options options, size_t job_count, Prepare prepare);
  // Stops the threads and kills the compile workers.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Job `job` (taken in increasing order), waiting for the pool to build it
  // (see above). nullopt when *stop turned true while waiting.
  std::optional<Taken> Take(size_t job, const std::atomic<bool>& stop);
  // The tuner will not measure `job` (another run measured it meanwhile).
  void Skip(size_t job);
  // More jobs: there are `job_count` now (more than before).
  void Extend(size_t job_count);

  void Pause();
  void Resume();

  // The compile workers running now (diagnostics and tests).
  std::vector<pid_t> worker_pids() const;

  // Seconds Take waited for a build in progress.
  double wait_seconds() const;
  // Why the compile workers could not start (the pool then stops helping);
  // empty when they could.
  std::string error() const;

 private:
  enum class State : uint8_t { kQueued, kWorking, kDone, kTaken };
  using Clock = std::chrono::steady_clock;

  void Work();
  Taken Run(size_t job, std::unique_ptr<WorkerProcess>& process);
  // Marks `source` as being built, first waiting while another thread builds
  // it; false when the pool stops meanwhile.
  bool ClaimSource(const std::string& source);
  void ReleaseSource(const std::string& source);
  // Starts a compile worker and waits until it opened the device; false (with
  // error_ set) when it cannot, twice in a row once one has started.
  bool StartWorker(std::unique_ptr<WorkerProcess>& process);
  // One attempt: false with why_not, and *said_why when the worker answered
  // (a fatal error, another protocol) rather than died.
  bool TryStartWorker(std::unique_ptr<WorkerProcess>& process, std::string* why_not,
                      bool* said_why);
  // Waits for one frame from `process`; nullopt when it died, ran past the
  // limit (it is then killed) or the pool stops.
  std::optional<std::string> Await(std::unique_ptr<WorkerProcess>& process, double limit_seconds,
                                   std::string* why);
  void Register(pid_t pid);
  bool Unregister(pid_t pid);  // true when it was registered
  void Forget(std::unique_ptr<WorkerProcess>& process, bool kill);
  double ActiveSeconds() const;  // wall clock minus time paused, since the start

  const Options options_;
  const Prepare prepare_;
  const Clock::time_point start_ = Clock::now();

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;  // a job to start, a pause lifted, the end
  std::condition_variable done_cv_;  // a job done
  std::vector<State> state_;
  std::vector<Taken> results_;
  size_t next_ = 0;    // the next job a thread looks at
  size_t cursor_ = 0;  // one past the last job taken
  bool paused_ = false;
  Clock::time_point paused_since_;
  double paused_seconds_ = 0;
  double wait_seconds_ = 0;
  std::string error_;
  std::set<pid_t> pids_;  // running compile workers, signalled by Pause and Resume
  // Sources a worker is building now: a job with the same source (configs
  // that differ only in launch-time parameters) waits for that build and
  // then finds it in the cache, instead of building it beside it.
  std::set<std::string> building_;
  std::atomic<bool> stop_{false};
  std::atomic<int> started_{0};  // workers that started, over the pool's life
  std::vector<std::thread> threads_;
};

}  // namespace beast
