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

}  // namespace

ProgramSupply::ProgramSupply(const SupplyOptions& options, const DeviceInfo& device,
                             harness::Renderer& renderer, std::vector<ProgramJob> jobs,
                             const std::string& executable)
    : renderer_(renderer), backend_(device.backend), jobs_list_(std::move(jobs)) {
  cpu_ = device.backend == Backend::kOpenCL && harness::IsCpuOpenClDevice(device.index);
  jobs_ = options.compile_jobs >= 0
              ? options.compile_jobs
              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (options.cache_dir.empty() || jobs_ == 0 || jobs_list_.empty()) return;
  CompilePool::Options pool;
  pool.executable = executable;
  pool.backend = device.backend;
  pool.arch = device.arch;
  pool.device_index = device.index;
  pool.cache_dir = options.cache_dir;
  pool.jobs = jobs_;
  pool.window = kWindowPerJob * static_cast<size_t>(jobs_);
  pool.timeout_seconds = options.timeout_seconds;
  pool.warm = cpu_;
  pool_ = std::make_unique<CompilePool>(pool, jobs_list_.size(),
                                        [this](size_t job) { return Prepare(job); });
}

PreparedInstance ProgramSupply::Prepare(size_t job) const {
  const ProgramJob& j = jobs_list_.at(job);
  return PrepareInstance(renderer_, *j.spec, *j.problem, *j.space, *j.config, backend_);
}

std::optional<ProgramSupply::Supplied> ProgramSupply::Take(size_t job,
                                                           const std::atomic<bool>& stop) {
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

void ProgramSupply::Skip(size_t job) {
  if (pool_) pool_->Skip(job);
}

ProgramSupply::DeviceBusy::DeviceBusy(ProgramSupply& supply)
    : paused_(supply.cpu_ ? supply.pool_.get() : nullptr) {
  if (paused_) paused_->Pause();
}

ProgramSupply::DeviceBusy::~DeviceBusy() {
  if (paused_) paused_->Resume();
}

}  // namespace beast
