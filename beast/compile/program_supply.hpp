// ProgramSupply: how the configs a run measures become programs on the
// device. Without a compile pool each config is rendered when its turn comes
// and the device worker builds it (through the program cache when there is
// one). With a pool (--compile-jobs, which needs the cache) the configs the
// search has proposed next are rendered and built into the cache ahead of
// the device, so the worker only loads them. Jobs are added as the search
// proposes them, in the order the device will measure them.
//
// On a CPU device the kernels run on the cores the pool compiles on, so the
// pool is stopped while the device worker measures (DeviceBusy): its builds
// happen while the worker would otherwise wait for them, several at once,
// and never beside a timed kernel. Its compile workers also launch one
// work-group of each kernel, since PoCL generates a kernel's code for its
// work-group size at the first launch and keeps it in the program binary:
// the device worker's first launch then skips that JIT, which costs as much
// as the build or more. On a GPU the pool never stops (kernels do not run on
// the cores it uses) and launches nothing (it would disturb the timings).
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "beast/compile/compile_pool.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/worker/instance_prepare.hpp"
#include "harness/render/renderer.hpp"

namespace beast {

// One config to measure, with the space it is a point of.
struct ProgramJob {
  const SpaceSpec* spec = nullptr;
  const Problem* problem = nullptr;
  const BoundSpace* space = nullptr;
  Config config;
};

// How programs are supplied: through the program cache in cache_dir (empty:
// none), by compile_jobs pool workers (-1: one per core; 0: none), each build
// given timeout_seconds.
struct SupplyOptions {
  std::string cache_dir;
  int compile_jobs = -1;
  double timeout_seconds = 60;
};

class ProgramSupply {
 public:
  // A pool runs when options.cache_dir is set and options.compile_jobs is
  // not 0, from the first job on; `executable` is the beast binary for its
  // workers.
  ProgramSupply(const SupplyOptions& options, const DeviceInfo& device, harness::Renderer& renderer,
                const std::string& executable);

  // Adds a job (the config the run will measure after those added so far)
  // unless it is there already (the same template, problem and config); its
  // number either way.
  size_t Add(ProgramJob job);

  // What one job became.
  struct Supplied {
    PreparedInstance instance;
    CompilePool::Built built = CompilePool::Built::kNone;
    double pool_compile_ms = 0;  // when the pool built it now
  };
  // Job `job` (in increasing order; the jobs before it not taken will not
  // be measured); nullopt when *stop turned true while waiting for the pool.
  // Throws like PrepareInstance.
  std::optional<Supplied> Take(size_t job, const std::atomic<bool>& stop);

  // Held while the device worker measures; stops the pool meanwhile on a CPU
  // device.
  class DeviceBusy {
   public:
    explicit DeviceBusy(ProgramSupply& supply);
    ~DeviceBusy();
    DeviceBusy(const DeviceBusy&) = delete;
    DeviceBusy& operator=(const DeviceBusy&) = delete;

   private:
    CompilePool* paused_;
  };

  int pool_jobs() const { return wants_pool_ ? jobs_ : 0; }
  bool cpu_device() const { return cpu_; }
  double wait_seconds() const { return pool_ ? pool_->wait_seconds() : 0; }
  // Why the pool's workers did not start; empty when they did.
  std::string pool_error() const { return pool_ ? pool_->error() : ""; }

 private:
  PreparedInstance Prepare(size_t job) const;
  void StartPool();

  harness::Renderer& renderer_;
  Backend backend_;
  CompilePool::Options pool_options_;
  bool cpu_ = false;
  bool wants_pool_ = false;
  int jobs_ = 0;
  mutable std::mutex mutex_;  // the jobs, read by the pool's threads
  std::deque<ProgramJob> jobs_list_;
  std::unordered_map<std::string, size_t> job_of_;  // by template, problem and config
  std::unique_ptr<CompilePool> pool_;
  size_t next_take_ = 0;  // the jobs before it are taken or skipped
};

}  // namespace beast
