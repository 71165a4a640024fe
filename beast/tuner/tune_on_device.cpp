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
#include "beast/tuner/tune_plan.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

// A baseline's first call compiles the library's kernels (over 10 s for
// CLBlast on PoCL without its kernel cache), so it gets more than a config's
// default limit; the peak microbenchmark builds two small programs.
constexpr double kBaselineTimeoutSeconds = 300;
constexpr double kPeakTimeoutSeconds = 120;

harness::BenchmarkPlan PlanOf(const TuneOptions& o) {
  harness::BenchmarkPlan plan;
  plan.warmup = o.warmup;
  plan.min_reps = o.min_reps;
  plan.max_reps = o.max_reps;
  plan.max_seconds = o.max_seconds_per_config;
  plan.flush_cache = o.flush_cache;
  return plan;
}

// The peak in the summary, and a line saying what it is.
void ShowPeak(const harness::PeakFlopsResult& peak, const DeviceInfo& device, bool progress,
              TuneSummary* summary) {
  summary->peak_method = peak.method;
  summary->peak_variant = peak.variant;
  summary->peak_error = peak.error;
  if (peak.ok) summary->peak_gflops = peak.gflops;
  if (peak.fp64.ok) summary->peak_gflops_f64 = peak.fp64.gflops;
  summary->peak_f64_variant = peak.fp64.variant;
  summary->peak_f64_error = peak.fp64.error;
  summary->bandwidth_method = peak.bandwidth.method;
  summary->bandwidth_variant = peak.bandwidth.variant;
  summary->bandwidth_error = peak.bandwidth.error;
  if (peak.bandwidth.ok) summary->bandwidth_gbs = peak.bandwidth.gbs;
  if (!progress) return;
  if (peak.bandwidth.ok)
    std::fprintf(stderr, "memory bandwidth %.1f GB/s on %s (best: %s)\n", peak.bandwidth.gbs,
                 device.Id().c_str(), peak.bandwidth.variant.c_str());
  if (peak.ok) {
    std::fprintf(stderr, "peak %.1f GFLOP/s fp32 on %s, measured by %s (best: %s)\n", peak.gflops,
                 device.Id().c_str(), peak.method.c_str(), peak.variant.c_str());
  } else {
    std::fprintf(stderr, "peak FLOP/s unknown: %s\n", peak.error.c_str());
  }
  if (peak.fp64.ok)
    std::fprintf(stderr, "peak %.1f GFLOP/s fp64 on %s (best: %s)\n", peak.fp64.gflops,
                 device.Id().c_str(), peak.fp64.variant.c_str());
}

// Once per problem, before its kernels: an interrupted run still has them.
std::vector<BaselineSummary> MeasureBaselines(const TuneOptions& o, const std::string& library,
                                              const std::vector<PlannedPair>& pairs,
                                              BaselineRunContext context,
                                              const std::atomic<bool>& stop) {
  if (library.empty()) return {};
  std::vector<const Problem*> problems;
  for (const PlannedPair& pair : pairs) problems.push_back(pair.problem);
  context.timeout_seconds = std::max(o.timeout_seconds, kBaselineTimeoutSeconds);
  return EnsureBaselines(context, problems, library, stop);
}

// Each pair's speed-up over the library (recorded by this run or an earlier
// one: --baselines none measures none) and its fraction of the peak.
void AddBaselinesAndPeak(results_db::Store& store, int64_t device_id, const DeviceInfo& device,
                         const std::string& library, TuneSummary* summary) {
  const std::string shown = !library.empty()                   ? library
                            : device.backend == Backend::kCuda ? std::string(kBaselineNvidia)
                                                               : std::string(kBaselineClblast);
  for (PairSummary& p : summary->pairs) {
    const Problem problem = Problem::Parse(p.problem_key);
    const std::string shown_library = BaselineFor(shown, problem).library;
    if (auto b = FastestBaseline(store, device_id, p.problem_key, shown_library)) {
      p.baseline_library = b->library;
      p.baseline_routine = b->routine;
      p.baseline_ms = b->median_ms.value_or(0);
    }
    // The roof of the arithmetic the kernel does: fp64's for f64, fp32's
    // for f32 and for f16/bf16 (storage types summed in float); unknown, no
    // fraction and no roofline built on it.
    if (!p.has_best) continue;
    const double peak =
        problem.dtype() == DType::kF64 ? summary->peak_gflops_f64 : summary->peak_gflops;
    if (peak <= 0) continue;
    p.fraction_of_peak = p.best_gflops / peak;
    if (summary->bandwidth_gbs > 0) {
      // The roofline's memory side: every buffer moved once (in the dtype's
      // bytes), at the bandwidth.
      const double bytes = static_cast<double>(ReferenceBytesMoved(problem));
      const double bound = summary->bandwidth_gbs * problem.Flops() / bytes;
      if (bound < peak) {
        p.bandwidth_bound_gflops = bound;
        p.fraction_of_bandwidth_bound = p.best_gflops / bound;
      }
    }
  }
}

}  // namespace

TuneSummary TuneOnDevice(const TuneOptions& o, const std::vector<SpaceSpec>& specs,
                         const DeviceInfo& device, const std::string& templates_dir,
                         std::chrono::steady_clock::time_point deadline,
                         const std::atomic<bool>& stop) {
  // A problem the device or host cannot hold is refused before any compile.
  for (const Problem& problem : o.problems) CheckProblemFits(problem, device, HostMemoryBytes());
  TuneSummary summary;
  const std::vector<PlannedPair> pairs =
      PlanPairs(specs, o, device, &summary.empty_spaces, &summary.other_layout);
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
  if (!worker.Start(stop)) {
    summary.interrupted = true;
    return summary;
  }
  const harness::BenchmarkPlan plan = PlanOf(o);
  results_db::Store store = results_db::Store::Open(o.db_path);
  // The run starts before the device's peaks are measured: its time span is
  // the whole invocation's, so runs that share a database overlap as their
  // processes do.
  const int64_t run_id = store.BeginRun(o.command_line, BEAST_VERSION);
  // The peak goes with the device into the database, so it is measured
  // before the device is recorded.
  std::optional<harness::PeakFlopsResult> peak;
  PeakRequest peak_request;
  peak_request.plan = plan;
  // The fp64 peak only where an f64 winner will be measured against it.
  for (const Problem& problem : o.problems)
    peak_request.fp64 = peak_request.fp64 || problem.dtype() == DType::kF64;
  try {
    peak = worker.MeasurePeak(peak_request, kPeakTimeoutSeconds, stop);
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
  try {
    summary.baselines = MeasureBaselines(
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
