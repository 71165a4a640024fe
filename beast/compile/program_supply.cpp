// Programs for the device worker, prepared now or by the compile pool ahead
// of it (program_supply.hpp).
#include "beast/compile/program_supply.hpp"

#include <algorithm>
#include <thread>

#include "harness/opencl/opencl_devices.hpp"

namespace beast {
namespace {

// How far past the job being measured the pool works. Builds that land in
// the cache are never wasted (a rerun loads them), so the window only bounds
// the memory for rendered sources and what an interrupted run leaves undone;
// a few jobs per worker keep every worker busy while the device takes its
// turn.
constexpr size_t kWindowPerJob = 4;

// A job's identity: the same config of another template or problem is
// another program (its constants are the problem's), so the key holds all
// three.
std::string JobKey(const ProgramJob& job) {
  return job.spec->name + '\n' + job.problem->Key() + '\n' + job.config.Key();
}

}  // namespace

ProgramSupply::ProgramSupply(const SupplyOptions& options, const DeviceInfo& device,
                             harness::Renderer& renderer, const std::string& executable)
    : renderer_(renderer), backend_(device.backend) {
  cpu_ = device.backend == Backend::kOpenCL && harness::IsCpuOpenClDevice(device.index);
  jobs_ = options.compile_jobs >= 0
              ? options.compile_jobs
              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  wants_pool_ = !options.cache_dir.empty() && jobs_ > 0;
  pool_options_.executable = executable;
  pool_options_.backend = device.backend;
  pool_options_.arch = device.arch;
  pool_options_.device_index = device.index;
  pool_options_.cache_dir = options.cache_dir;
  pool_options_.jobs = jobs_;
  pool_options_.window = kWindowPerJob * static_cast<size_t>(std::max(jobs_, 1));
  pool_options_.timeout_seconds = options.timeout_seconds;
  pool_options_.warm = cpu_;
}

// The pool starts with the first job: a run that finds everything measured
// starts no compile worker.
void ProgramSupply::StartPool() {
  pool_ =
      std::make_unique<CompilePool>(pool_options_, 0, [this](size_t job) { return Prepare(job); });
}

size_t ProgramSupply::Add(ProgramJob job) {
  size_t count = 0, number = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, fresh] = job_of_.emplace(JobKey(job), jobs_list_.size());
    if (!fresh) return it->second;
    number = it->second;
    jobs_list_.push_back(std::move(job));
    count = jobs_list_.size();
  }
  if (wants_pool_ && !pool_) StartPool();
  if (pool_) pool_->Extend(count);
  return number;
}

PreparedInstance ProgramSupply::Prepare(size_t job) const {
  ProgramJob j;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j = jobs_list_.at(job);
  }
  return PrepareInstance(renderer_, *j.spec, *j.problem, *j.space, j.config, backend_);
}

std::optional<ProgramSupply::Supplied> ProgramSupply::Take(size_t job,
                                                           const std::atomic<bool>& stop) {
  for (; next_take_ < job; ++next_take_) {
    if (pool_) pool_->Skip(next_take_);
  }
  next_take_ = job + 1;
  Supplied supplied;
  if (pool_) {
    std::optional<CompilePool::Taken> taken = pool_->Take(job, stop);
    if (!taken) return std::nullopt;
    if (taken->prepared) {
      supplied.instance = std::move(taken->instance);
      supplied.built = taken->built;
      supplied.pool_compile_ms = taken->compile_ms;
      return supplied;
    }
  }
  supplied.instance = Prepare(job);
  return supplied;
}

ProgramSupply::DeviceBusy::DeviceBusy(ProgramSupply& supply)
    : paused_(supply.cpu_ ? supply.pool_.get() : nullptr) {
  if (paused_) paused_->Pause();
}

ProgramSupply::DeviceBusy::~DeviceBusy() {
  if (paused_) paused_->Resume();
}

}  // namespace beast
