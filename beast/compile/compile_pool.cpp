// The compile pool (compile_pool.hpp): threads that prepare jobs and have
// compile worker processes build them into the program cache.
#include "beast/compile/compile_pool.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>

#include "beast/compile/compile_protocol.hpp"
#include "beast/core/error.hpp"
#include "beast/worker/worker_process.hpp"
#include "beast/worker/worker_protocol.hpp"

namespace beast {
namespace {

// Opening the device takes well under a second; a minute means it is stuck.
constexpr double kStartSeconds = 60;
// How often a wait looks at the clock, the stop flag and the pause.
constexpr auto kSlice = std::chrono::milliseconds(250);

}  // namespace

CompilePool::CompilePool(Options options, size_t job_count, Prepare prepare)
    : options_(std::move(options)),
      prepare_(std::move(prepare)),
      state_(job_count, State::kQueued),
      results_(job_count) {
  for (int i = 0; i < options_.jobs; ++i) threads_.emplace_back([this] { Work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  Resume();  // a stopped worker could not die of a closed socket
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

std::optional<CompilePool::Taken> CompilePool::Take(size_t job, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mutex_);
  BEAST_CHECK(job < state_.size());
  cursor_ = std::max(cursor_, job + 1);
  work_cv_.notify_all();
  auto start = Clock::now();
  while (state_[job] != State::kDone) {
    // A job nobody works on is the caller's once the pool cannot take it: it
    // has no workers, they could not start, or it is paused. Otherwise the
    // pool gets to it next, and builds it as the device worker would.
    const bool pool_stuck = threads_.empty() || !error_.empty() || paused_ || stop_;
    if (state_[job] == State::kTaken || (state_[job] == State::kQueued && pool_stuck)) {
      state_[job] = State::kTaken;
      return Taken{};
    }
    if (stop) return std::nullopt;
    done_cv_.wait_for(lock, kSlice);
  }
  wait_seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  state_[job] = State::kTaken;
  Taken taken = std::move(results_[job]);
  results_[job] = Taken{};
  return taken;
}

void CompilePool::Skip(size_t job) {
  std::lock_guard<std::mutex> lock(mutex_);
  BEAST_CHECK(job < state_.size());
  cursor_ = std::max(cursor_, job + 1);
  if (state_[job] != State::kWorking) {
    state_[job] = State::kTaken;
    results_[job] = Taken{};
  }
  work_cv_.notify_all();
}

void CompilePool::Extend(size_t job_count) {
  std::lock_guard<std::mutex> lock(mutex_);
  BEAST_CHECK(job_count >= state_.size());
  state_.resize(job_count, State::kQueued);
  results_.resize(job_count);
  work_cv_.notify_all();
}

void CompilePool::Pause() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (paused_) return;
  paused_ = true;
  paused_since_ = Clock::now();
  for (pid_t pid : pids_) ::kill(pid, SIGSTOP);
  // Signals arrive a moment later: wait until each worker has stopped (or
  // died), so nothing of the pool runs beside what the caller starts next.
  // WNOWAIT leaves the child for the reaping that WorkerProcess does.
  for (pid_t pid : pids_) {
    siginfo_t info;
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WSTOPPED | WEXITED | WNOWAIT) < 0 &&
           errno == EINTR) {
    }
  }
}

void CompilePool::Resume() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!paused_) return;
  paused_ = false;
  paused_seconds_ += std::chrono::duration<double>(Clock::now() - paused_since_).count();
  for (pid_t pid : pids_) ::kill(pid, SIGCONT);
  work_cv_.notify_all();
}

std::vector<pid_t> CompilePool::worker_pids() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::vector<pid_t>(pids_.begin(), pids_.end());
}

double CompilePool::wait_seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return wait_seconds_;
}

std::string CompilePool::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

double CompilePool::ActiveSeconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  double paused = paused_seconds_;
  if (paused_) paused += std::chrono::duration<double>(Clock::now() - paused_since_).count();
  return std::chrono::duration<double>(Clock::now() - start_).count() - paused;
}

void CompilePool::Register(pid_t pid) {
  std::lock_guard<std::mutex> lock(mutex_);
  pids_.insert(pid);
  if (paused_) ::kill(pid, SIGSTOP);
}

bool CompilePool::Unregister(pid_t pid) {
  // Out of the set before it is reaped: its pid may be reused afterwards.
  std::lock_guard<std::mutex> lock(mutex_);
  return pids_.erase(pid) > 0;
}

void CompilePool::Forget(std::unique_ptr<WorkerProcess>& process, bool kill) {
  if (!process) return;
  // A stopped process can neither leave nor be reaped in time. (One that is
  // no longer registered was reaped already.)
  if (Unregister(process->pid())) ::kill(process->pid(), SIGCONT);
  if (kill) process->Kill();
  process.reset();  // closes its socket and reaps it
}

void CompilePool::Work() {
  std::unique_ptr<WorkerProcess> process;
  while (true) {
    size_t job = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [this] {
        return stop_ || !error_.empty() ||
               (!paused_ && next_ < state_.size() && next_ < cursor_ + options_.window);
      });
      if (stop_ || !error_.empty()) break;
      job = next_++;
      if (state_[job] != State::kQueued) continue;  // taken or skipped already
      state_[job] = State::kWorking;
    }
    Taken taken = Run(job, process);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      results_[job] = std::move(taken);
      state_[job] = State::kDone;
    }
    done_cv_.notify_all();
  }
  Forget(process, /*kill=*/true);
  done_cv_.notify_all();
}

CompilePool::Taken CompilePool::Run(size_t job, std::unique_ptr<WorkerProcess>& process) {
  Taken taken;
  try {
    taken.instance = prepare_(job);
  } catch (const std::exception&) {
    return Taken{};  // the tuner prepares it again and meets the error itself
  }
  taken.prepared = true;
  if (taken.instance.failure) return taken;
  if (!process && !StartWorker(process)) return taken;
  const MeasureRequest& r = taken.instance.request;
  CompileRequest request{r.problem_key, r.source, r.kernel_name,
                         r.geometry,    r.stages, options_.warm};
  if (!ClaimSource(r.source)) return taken;
  std::string why;
  std::optional<std::string> reply;
  if (process->Send(EncodeCompile(request), Clock::now() + std::chrono::seconds(10)))
    reply = Await(process, options_.timeout_seconds, &why);
  ReleaseSource(r.source);
  if (!reply) {
    Forget(process, /*kill=*/true);  // the next job gets a fresh worker
    if (!stop_) taken.built = Built::kFailed;
    return taken;
  }
  CompileReply compiled = DecodeCompiled(*reply);
  switch (compiled.result) {
    case CompileReply::Result::kCached:
      taken.built = Built::kCached;
      break;
    case CompileReply::Result::kCompiled:
      taken.built = Built::kCompiled;
      break;
    case CompileReply::Result::kNotStored:
      taken.built = Built::kNotStored;
      break;
  }
  taken.compile_ms = compiled.compile_ms;
  return taken;
}

bool CompilePool::ClaimSource(const std::string& source) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (building_.count(source)) {
    if (stop_) return false;
    done_cv_.wait_for(lock, kSlice);
  }
  building_.insert(source);
  return true;
}

void CompilePool::ReleaseSource(const std::string& source) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    building_.erase(source);
  }
  done_cv_.notify_all();
}

bool CompilePool::StartWorker(std::unique_ptr<WorkerProcess>& process) {
  // A worker that replaces one that crashed or hung may itself be killed
  // from outside as it starts: once a worker has started, a start whose
  // worker died without a word is tried once more before the pool gives up
  // (one that said why, a fatal error, is not).
  const int attempts = started_.load() > 0 ? 2 : 1;
  std::string why;
  bool said_why = false;
  for (int attempt = 0; attempt < attempts && !stop_ && !said_why; ++attempt) {
    if (TryStartWorker(process, &why, &said_why)) {
      ++started_;
      return true;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!stop_ && error_.empty()) error_ = "a compile worker did not start: " + why;
  work_cv_.notify_all();
  done_cv_.notify_all();
  return false;
}

bool CompilePool::TryStartWorker(std::unique_ptr<WorkerProcess>& process, std::string* why_not,
                                 bool* said_why) {
  std::string why;
  *said_why = false;
  try {
    std::vector<std::string> args{"--compile", "--cache-dir", options_.cache_dir, "--backend",
                                  BackendName(options_.backend)};
    if (options_.backend == Backend::kCuda) args.insert(args.end(), {"--arch", options_.arch});
    process = std::make_unique<WorkerProcess>(options_.executable, options_.device_index, args);
    Register(process->pid());
    std::optional<std::string> first = Await(process, kStartSeconds, &why);
    *said_why = first.has_value();
    if (first && MessageKind(*first) == WorkerMessage::kFatal) {
      why = DecodeFatal(*first);
    } else if (first) {
      WorkerReady ready = DecodeReady(*first);
      if (ready.protocol_version == kWorkerProtocolVersion) return true;
      why = "it speaks protocol " + std::to_string(ready.protocol_version) + ", this beast " +
            std::to_string(kWorkerProtocolVersion);
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  Forget(process, /*kill=*/true);
  *why_not = why;
  return false;
}

std::optional<std::string> CompilePool::Await(std::unique_ptr<WorkerProcess>& process,
                                              double limit_seconds, std::string* why) {
  const double start = ActiveSeconds();
  const auto stopped_before = process->stopped();  // Ctrl-Z: counts against no limit
  std::string payload;
  while (true) {
    switch (process->Receive(&payload, Clock::now() + kSlice, &stop_)) {
      case WorkerProcess::Wait::kFrame:
        return payload;
      case WorkerProcess::Wait::kStopped:
        *why = "the pool stopped";
        return std::nullopt;
      case WorkerProcess::Wait::kGone:
        Unregister(process->pid());
        *why = "the compile worker " + process->Reap() +
               (process->LastStderrLine().empty() ? "" : ": " + process->LastStderrLine());
        return std::nullopt;
      case WorkerProcess::Wait::kDeadline:
        if (ActiveSeconds() - start -
                std::chrono::duration<double>(process->stopped() - stopped_before).count() >
            limit_seconds) {
          *why = "the compile worker ran past " + std::to_string(limit_seconds) + " s";
          return std::nullopt;
        }
        break;
    }
  }
}

}  // namespace beast
