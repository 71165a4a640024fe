// A tuning run on a live device (tune_on_device.hpp).
#include "beast/tuner/tune_on_device.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "beast/core/paths.hpp"
#include "beast/problem/problem_buffers.hpp"
#include "beast/space/post_compile.hpp"
#include "beast/tuner/device_measurer.hpp"
#include "beast/tuner/run_failure.hpp"
#include "beast/tuner/tune_baselines.hpp"
#include "beast/tuner/tune_loop.hpp"
#include "beast/tuner/tune_peak.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

// Proposed configs a GPU run keeps unmeasured (TuneLoopContext::search_lead).
constexpr size_t kDeviceSearchLead = 8;

}  // namespace

TuneSummary TuneOnDevice(const TuneOptions& o, const std::vector<SpaceSpec>& specs,
                         const DeviceInfo& device, const std::string& templates_dir,
                         std::chrono::steady_clock::time_point deadline,
                         const std::atomic<bool>& stop) {
  // A problem the device or host cannot hold is refused before any compile.
  for (const Problem& problem : o.problems) CheckProblemFits(problem, device, HostMemoryBytes());
  TuneSummary summary;
  const std::vector<PlannedPair> pairs = PlanPairs(specs, o, device, &summary.empty_spaces,
                                                   &summary.other_layout, &summary.not_applicable);
  for (const PlannedPair& pair : pairs) summary.planned_problems.insert(pair.problem->Key());
  summary.device_id = device.Id();
  summary.device_name = device.name;
  summary.post_compile_not_applied = UnappliedPostCompileLine(SpacesOf(pairs), device.backend);
  if (o.progress && !summary.post_compile_not_applied.empty())
    std::fprintf(stderr, "%s\n", summary.post_compile_not_applied.c_str());
  const std::string library = ResolveBaselineLibrary(o.baselines, device);
  // A cache directory that cannot hold files is found now, in one line,
  // before anything is written.
  if (!o.cache_dir.empty()) harness::ProgramCache check_cache(o.cache_dir);
  summary.cache_dir = o.cache_dir;
  const Paths paths = Paths::Default();
  harness::Renderer renderer(paths.python, paths.render_script, templates_dir);
  // A render is bounded like a build and a run, and Ctrl-C stops it at once.
  renderer.SetLimits(o.timeout_seconds, &stop);
  // /proc/self/exe is this very binary, even if the file was replaced since
  // it started.
  const std::string executable =
      o.worker_executable.empty() ? "/proc/self/exe" : o.worker_executable;
  WorkerClient worker(executable, device.backend, device.index, device.name, o.cache_dir);
  worker.SetSetupSeconds(std::max(o.setup_seconds, o.timeout_seconds));
  if (!worker.Start(stop)) {
    summary.interrupted = true;
    return summary;
  }
  const harness::BenchmarkPlan plan = BenchmarkPlanOf(o);
  results_db::Store store = results_db::Store::Open(o.db_path);
  // The run starts before the device's peaks are measured: its time span is
  // the whole invocation's, so runs that share a database overlap as their
  // processes do.
  const int64_t run_id = store.BeginRun(o.command_line, BEAST_VERSION);
  // The peak goes with the device into the database, so it is measured
  // before the device is recorded.
  std::optional<harness::PeakFlopsResult> peak;
  try {
    peak = worker.MeasurePeak(PeakRequestOf(o, pairs), kPeakTimeoutSeconds, stop);
  } catch (...) {
    EndFailedRun(store, run_id);
  }
  if (!peak) {
    worker.Stop();
    store.FinishRun(run_id, results_db::RunEnd::kInterrupted);
    summary.interrupted = true;
    return summary;
  }
  ShowPeak(*peak, device, o.progress, &summary);
  const int64_t device_id = store.UpsertDevice(
      {device.backend, device.name, device.vendor, device.driver_version, device.arch,
       LimitsWithMeasuredPeak(DeviceLimitsToJson(device.limits), *peak)});
  Progress progress(o.progress, SelectedConfigs(pairs), /*compile_only=*/false, o.progress_label,
                    o.progress_seconds);
  progress.SetDeadline(deadline);
  try {
    summary.baselines = MeasureRunBaselines(
        o, library, pairs, {worker, store, device_id, run_id, plan, 0, o.progress}, stop);
    ProgramSupply supply({o.cache_dir, o.compile_jobs, o.timeout_seconds}, device, renderer,
                         executable);
    summary.compile_jobs = supply.pool_jobs();
    summary.pool_paused_while_timing = supply.pool_jobs() > 0 && supply.cpu_device();
    DeviceMeasurer measurer(
        {o, device, renderer, worker, store, supply, plan, device_id, run_id, summary});
    TuneLoopContext loop{
        store, progress, device_id, run_id, device.compiler, device.compiler_version, o, deadline};
    // The pool builds what the device measures next and the batch after it.
    loop.lookahead = std::max<size_t>(8, 2 * static_cast<size_t>(supply.pool_jobs()));
    // A GPU measures a config in milliseconds and NVRTC takes about a second
    // to build one: with the next batch proposed only when 2 configs were
    // left, an H200's 16 compile workers built one batch of 8 at a time and
    // the device was busy 2-13% of the wall time. With 8 left the pool always
    // has a batch to build while the device measures; replayed with 16
    // simulated workers (beast replay --workers 16 --at ...), the three
    // convolution caches' mean went from 0.914 to 0.945 of the optimum at 60
    // s and 0.978 to 0.999 at 120 s. A constant, not the core count, so a
    // resumed run on any machine regenerates the same trajectory. A CPU
    // device keeps 2: its pool is paused while it times, so builds ahead gain
    // little there.
    if (!supply.cpu_device()) loop.search_lead = kDeviceSearchLead;
    summary.pairs = TunePairs(loop, pairs, measurer, stop);
    summary.proposal_seconds = loop.proposal_seconds;
    summary.compile_wait_seconds = supply.wait_seconds();
    summary.compile_pool_error = supply.pool_error();
  } catch (...) {
    progress.Finish();
    worker.Stop();
    EndFailedRun(store, run_id);  // what was recorded stays; a rerun resumes
  }
  progress.Finish();
  worker.Stop();
  AddBaselinesAndPeak(store, device_id, device, library, &summary);
  summary.interrupted = stop;
  summary.worker_restarts = worker.restarts();
  store.FinishRun(run_id, summary.interrupted ? results_db::RunEnd::kInterrupted
                                              : results_db::RunEnd::kFinished);
  return summary;
}

}  // namespace beast
