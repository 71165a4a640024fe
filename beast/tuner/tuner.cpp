// The tuning run (tuner.hpp): validate every input, start the device worker,
// then render each selected config of each (template, problem) pair, have the
// worker measure it and record the outcome, one transaction each.
#include "beast/tuner/tuner.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "harness/devices/device_resolver.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/space/template_vars.hpp"
#include "beast/tuner/compile_only_tuner.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/render/renderer.hpp"
#include "beast/space/post_compile.hpp"
#include "beast/tuner/outcome_record.hpp"
#include "beast/compile/program_supply.hpp"
#include "beast/tuner/tune_jobs.hpp"
#include "beast/tuner/progress.hpp"
#include "results_db/store.hpp"
#include "beast/tuner/run_failure.hpp"
#include "beast/tuner/tune_baselines.hpp"
#include "beast/tuner/tune_confirm.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/worker/worker_client.hpp"

namespace beast {
namespace {

std::atomic<bool> g_interrupted{false};

// A baseline's first call compiles the library's kernels (over 10 s for
// CLBlast on PoCL without its kernel cache), so it gets more than a config's
// default limit; the peak microbenchmark builds two small programs.
constexpr double kBaselineTimeoutSeconds = 300;
constexpr double kPeakTimeoutSeconds = 120;

// Heads the build log of a measurement whose program came from the cache.
constexpr const char* kFromCacheNote =
    "beast: program loaded from the program cache; compile_ms is the build that made it\n";

// The first Ctrl-C stops the run cleanly; a second one, for a user who will
// not wait, ends the process at once (the database stays intact and the
// worker dies with it).
void OnInterrupt(int sig) {
  if (g_interrupted) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
  g_interrupted = true;
}

// Ctrl-C and SIGTERM stop the run cleanly; the previous handlers come back
// when it ends. No SA_RESTART: a wait in progress returns at once.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    struct sigaction action = {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }

 private:
  struct sigaction previous_int_ = {}, previous_term_ = {};
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The pair's best ok config in the database, of this template version.
std::optional<results_db::ResultRow> BestOfPair(results_db::Store& store, int64_t device_id,
                                                const Problem& problem, const SpaceSpec& spec) {
  results_db::QueryFilter filter;
  filter.problem_key = problem.Key();
  filter.template_name = spec.name;
  filter.device_id = device_id;
  filter.best_only = true;
  for (auto& row : store.Query(filter)) {
    if (row.template_hash == spec.hash) return row;
  }
  return std::nullopt;
}

// The pair's ok config of lowest median (first recorded on a tie), of this
// template version, whatever a confirmation says; "" when none.
std::string UnconfirmedBest(results_db::Store& store, int64_t device_id, const Problem& problem,
                            const SpaceSpec& spec) {
  results_db::QueryFilter filter;
  filter.problem_key = problem.Key();
  filter.template_name = spec.name;
  filter.device_id = device_id;
  filter.status = Status::kOk;
  for (auto& row : store.Query(filter)) {  // by median
    if (row.template_hash == spec.hash && row.median_ms) return row.config_key;
  }
  return "";
}

// The best ok median of the problem on the device, any template: the time
// scale of the relative time limit.
std::optional<double> BestOfProblem(results_db::Store& store, int64_t device_id,
                                    const Problem& problem) {
  results_db::QueryFilter filter;
  filter.problem_key = problem.Key();
  filter.device_id = device_id;
  filter.best_only = true;
  std::optional<double> best;
  for (const auto& row : store.Query(filter)) {
    if (row.median_ms && (!best || *row.median_ms < *best)) best = row.median_ms;
  }
  return best;
}

// What stays the same over the whole run.
struct Run {
  const TuneOptions& options;
  const DeviceInfo& device;
  harness::Renderer& renderer;
  WorkerClient& worker;
  results_db::Store& store;
  Progress& progress;
  TuneSummary& summary;
  int64_t device_id;
  int64_t run_id;
  harness::BenchmarkPlan plan;
  std::map<std::string, double> best_ms_by_problem;
  ProgramSupply* supply = nullptr;  // rendered (and built) configs, in the order of `jobs`
  const std::vector<ProgramJob>* jobs = nullptr;
};

// Takes job `job` (config `config` of `pair`) rendered, and built when the
// compile pool got to it, and has the worker measure it; nullopt when the run
// was interrupted first. `supplied` says what the pool did.
std::optional<Outcome> MeasureConfig(Run& run, const PlannedPair& pair, size_t job,
                                     const Config& config, ProgramSupply::Supplied* supplied) {
  const Problem& problem = *pair.problem;
  std::optional<ProgramSupply::Supplied> taken = run.supply->Take(job, g_interrupted);
  if (!taken) return std::nullopt;
  *supplied = std::move(*taken);
  if (supplied->instance.failure) return *supplied->instance.failure;
  MeasureRequest request = supplied->instance.request;
  request.plan = run.plan;
  TimeLimit limit;
  limit.timeout_seconds = run.options.timeout_seconds;
  auto best = run.best_ms_by_problem.find(problem.Key());
  if (best != run.best_ms_by_problem.end()) {
    limit.best_ms = best->second;
    request.plan.best_ms = best->second;  // clear losers stop early
  }
  limit.launches = 1 + run.plan.warmup + run.plan.max_reps;
  PostCompileCheck check;
  if (pair.post_compile) {
    check = [&](const CompiledResources& r) {
      return PostCompileViolation(*pair.space, config, r);
    };
  }
  ProgramSupply::DeviceBusy busy(*run.supply);
  return run.worker.Measure(request, limit, g_interrupted, check);
}

// The top configs re-measured side by side (tune_confirm.hpp), and what the
// pair's summary says of the confirmation that stands.
void Confirm(Run& run, const PlannedPair& pair, int64_t problem_id, int64_t template_id,
             PairSummary* ps) {
  if (run.options.confirm_top >= 2 && !g_interrupted) {
    ConfirmContext context{run.worker,
                           run.store,
                           run.renderer,
                           run.device,
                           run.device_id,
                           run.run_id,
                           run.plan,
                           run.options.timeout_seconds * run.options.confirm_top,
                           run.options.confirm_top,
                           run.options.progress};
    ProgramSupply::DeviceBusy busy(*run.supply);
    auto start = std::chrono::steady_clock::now();
    ps->confirmed_now =
        ConfirmPair(context, pair, problem_id, template_id, g_interrupted) == ConfirmStatus::kDone;
    if (ps->confirmed_now) run.summary.confirm_seconds += Seconds(start);
  }
}

PairSummary TunePair(Run& run, const PlannedPair& pair, size_t index, size_t pair_count,
                     std::pair<size_t, size_t> jobs) {
  const SpaceSpec& spec = *pair.spec;
  const Problem& problem = *pair.problem;
  PairSummary ps;
  ps.template_name = spec.name;
  ps.problem_key = problem.Key();
  ps.space_size = pair.count;
  ps.selected = pair.configs.size();
  int64_t problem_id = run.store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
  int64_t template_id = run.store.UpsertTemplate(spec.name, spec.hash, spec.source_rel);
  if (!pair.has_default && run.options.progress) {
    std::fprintf(stderr, "%s: the default config does not fit %s (%s); no baseline for speed-ups\n",
                 spec.name.c_str(), problem.Key().c_str(), pair.no_default_why.c_str());
  }
  std::set<std::string> measured =
      run.store.MeasuredConfigKeys(run.device_id, problem_id, template_id);
  // Measured already, by an earlier run or by another one since this run
  // planned its jobs.
  for (const Config& c : pair.configs) ps.skipped += measured.count(c.Key());
  if (!run.best_ms_by_problem.count(problem.Key())) {
    if (auto best = BestOfProblem(run.store, run.device_id, problem))
      run.best_ms_by_problem[problem.Key()] = *best;
  }
  double best_ms = -1, best_gflops = 0;
  if (auto row = BestOfPair(run.store, run.device_id, problem, spec)) {
    best_ms = row->median_ms.value_or(-1);
    best_gflops = row->gflops.value_or(0);
  }
  run.progress.StartPair(
      "[" + std::to_string(index + 1) + "/" + std::to_string(pair_count) + "] " + spec.name,
      problem.Key(), best_ms, best_gflops);
  run.progress.Skipped(ps.skipped);
  const std::string default_key = pair.has_default ? pair.default_config.Key() : "";
  for (size_t job = jobs.first; job < jobs.first + jobs.second; ++job) {
    const Config* config = (*run.jobs)[job].config;
    if (measured.count(config->Key())) {  // another run measured it since the plan
      run.supply->Skip(job);
      continue;
    }
    if (g_interrupted) break;
    ProgramSupply::Supplied supplied;
    std::optional<Outcome> outcome = MeasureConfig(run, pair, job, *config, &supplied);
    if (!outcome) break;  // interrupted: the config in flight stays unmeasured
    AccountSupply(supplied, *outcome, &run.summary);
    run.summary.first_launch_seconds += outcome->first_launch_seconds;
    run.summary.benchmark_seconds += outcome->benchmark_seconds;
    std::string key = config->Key();
    results_db::MeasurementRecord m;
    m.run_id = run.run_id;
    m.device_id = run.device_id;
    m.problem_id = problem_id;
    // The config row and its measurement commit together, in one write.
    results_db::Store::Batch batch(run.store);
    m.config_id = run.store.UpsertConfig(template_id, key, config->Hash(), config->ToJson());
    m.is_default = key == default_key;
    m.status = outcome->status;
    m.samples_ms = outcome->samples_ms;
    m.median_ms = outcome->median_ms;
    m.spread = outcome->spread;
    if (outcome->median_ms && *outcome->median_ms > 0)
      m.gflops = problem.Flops() / (*outcome->median_ms * 1e6);
    m.max_error = outcome->max_error;
    m.compile_ms = outcome->compile_ms;
    m.error_text = outcome->error_text;
    m.build_log = outcome->build_log;
    if (outcome->from_cache) m.build_log = kFromCacheNote + m.build_log;
    m.compiler = run.device.compiler;
    m.compiler_version = run.device.compiler_version;
    CopyResources(outcome->resources, &m);
    run.store.RecordMeasurement(m);
    batch.Commit();
    ++ps.measured;
    bool ok = outcome->status == Status::kOk;
    if (!ok) {
      ++ps.failed;
      ++ps.failures[outcome->status];
    }
    if (ok && (best_ms < 0 || *outcome->median_ms < best_ms)) {
      best_ms = *outcome->median_ms;
      best_gflops = m.gflops.value_or(0);
    }
    if (ok) {
      auto [it, inserted] = run.best_ms_by_problem.emplace(problem.Key(), *outcome->median_ms);
      if (!inserted) it->second = std::min(it->second, *outcome->median_ms);
    }
    run.progress.Measured(outcome->status, best_ms, best_gflops);
  }
  Confirm(run, pair, problem_id, template_id, &ps);
  if (auto row = BestOfPair(run.store, run.device_id, problem, spec)) {
    ps.has_best = true;
    ps.best_config = row->config_key;
    ps.best_ms = row->median_ms.value_or(0);
    ps.best_gflops = row->gflops.value_or(0);
    ps.speedup_vs_default = row->speedup_vs_default.value_or(0);
    if (row->confirmed_ms) {
      ps.confirmed_ms = *row->confirmed_ms;
      std::vector<results_db::Confirmation> all =
          run.store.Confirmations(run.device_id, problem_id, template_id);
      ps.confirmed_candidates = all.empty() ? 0 : static_cast<int>(all.back().results.size());
      ps.unconfirmed_best = UnconfirmedBest(run.store, run.device_id, problem, spec);
      if (ps.unconfirmed_best == ps.best_config) ps.unconfirmed_best.clear();
    }
  }
  return ps;
}

}  // namespace

TuneSummary Tune(const TuneOptions& o) {
  auto start = std::chrono::steady_clock::now();
  if (o.templates.empty()) throw Error(ErrorCode::kBadArgument, "no template to tune (--template)");
  if (o.problems.empty()) throw Error(ErrorCode::kBadArgument, "no problem to tune (--problem)");
  if (!(o.timeout_seconds > 0))
    throw Error(ErrorCode::kBadArgument, "the timeout per config must be positive");
  Paths paths = Paths::Default();
  std::string templates_dir = o.templates_dir.empty() ? paths.templates_dir : o.templates_dir;
  std::vector<SpaceSpec> specs;
  for (const auto& name : o.templates) specs.push_back(SpaceSpec::Load(templates_dir, name));
  DeviceInfo device = ResolveDevice(o.device);
  if (!o.device.arch.empty()) {  // cuda:sm_XX: a device that is not present
    InterruptGuard guard;
    return TuneCompileOnly(o, specs, device, templates_dir, g_interrupted);
  }
  std::vector<PlannedPair> pairs = PlanPairs(specs, o, device);
  const std::string not_applied = UnappliedPostCompileLine(SpacesOf(pairs), device.backend);
  if (o.progress && !not_applied.empty()) std::fprintf(stderr, "%s\n", not_applied.c_str());
  const std::string library = ResolveBaselineLibrary(o.baselines, device);

  TuneSummary summary;
  summary.device_id = device.Id();
  summary.device_name = device.name;
  summary.post_compile_not_applied = not_applied;
  // A cache directory that cannot hold files is found now, in one line,
  // before anything is written.
  if (!o.cache_dir.empty()) harness::ProgramCache check_cache(o.cache_dir);
  summary.cache_dir = o.cache_dir;
  harness::Renderer renderer(paths.python, paths.render_script, templates_dir);
  InterruptGuard guard;
  // The worker is the last thing that can fail for the environment; it starts
  // before the database is touched. /proc/self/exe is this very binary, even
  // if the file was replaced since it started.
  const std::string executable =
      o.worker_executable.empty() ? "/proc/self/exe" : o.worker_executable;
  WorkerClient worker(executable, device.backend, device.index, device.name, o.cache_dir);
  if (!worker.Start(g_interrupted)) {
    summary.interrupted = true;
    summary.wall_seconds = Seconds(start);
    return summary;
  }
  harness::BenchmarkPlan plan;
  plan.warmup = o.warmup;
  plan.min_reps = o.min_reps;
  plan.max_reps = o.max_reps;
  plan.max_seconds = o.max_seconds_per_config;
  plan.flush_cache = o.flush_cache;
  results_db::Store store = results_db::Store::Open(o.db_path);
  // The peak goes with the device into the database, so it is measured
  // before the device is recorded.
  std::optional<harness::PeakFlopsResult> peak =
      worker.MeasurePeak(plan, kPeakTimeoutSeconds, g_interrupted);
  if (!peak) {
    worker.Stop();
    summary.interrupted = true;
    summary.wall_seconds = Seconds(start);
    return summary;
  }
  summary.peak_method = peak->method;
  summary.peak_variant = peak->variant;
  summary.peak_error = peak->error;
  if (peak->ok) summary.peak_gflops = peak->gflops;
  if (o.progress) {
    if (peak->ok) {
      std::fprintf(stderr, "peak %.1f GFLOP/s fp32 on %s, measured by %s (best: %s)\n",
                   peak->gflops, device.Id().c_str(), peak->method.c_str(), peak->variant.c_str());
    } else {
      std::fprintf(stderr, "peak FLOP/s unknown: %s\n", peak->error.c_str());
    }
  }
  results_db::DeviceRecord device_record{
      device.backend,
      device.name,
      device.vendor,
      device.driver_version,
      device.arch,
      LimitsWithMeasuredPeak(DeviceLimitsToJson(device.limits), *peak)};
  int64_t device_id = store.UpsertDevice(device_record);
  int64_t run_id = store.BeginRun(o.command_line, BEAST_VERSION);

  uint64_t total = 0;
  for (const PlannedPair& pair : pairs) total += pair.configs.size();
  Progress progress(o.progress, total, /*compile_only=*/false, o.progress_label,
                    o.progress_seconds);
  Run run{o, device, renderer, worker, store, progress, summary, device_id, run_id, plan, {}};
  try {
    if (!library.empty()) {
      // Once per problem, before its kernels: an interrupted run still has them.
      std::vector<const Problem*> problems;
      for (const PlannedPair& pair : pairs) problems.push_back(pair.problem);
      BaselineRunContext context{worker,    store,
                                 device_id, run_id,
                                 plan,      std::max(o.timeout_seconds, kBaselineTimeoutSeconds),
                                 o.progress};
      summary.baselines = EnsureBaselines(context, problems, library, g_interrupted);
    }
    JobPlan jobs = PlanJobs(store, device_id, pairs);
    ProgramSupply supply(SupplyOptions{o.cache_dir, o.compile_jobs, o.timeout_seconds}, device,
                         renderer, jobs.jobs, executable);
    run.supply = &supply;
    run.jobs = &jobs.jobs;
    summary.compile_jobs = supply.pool_jobs();
    summary.pool_paused_while_timing = supply.pool_jobs() > 0 && supply.cpu_device();
    for (size_t i = 0; i < pairs.size() && !g_interrupted; ++i)
      summary.pairs.push_back(TunePair(run, pairs[i], i, pairs.size(), jobs.spans[i]));
    summary.compile_wait_seconds = supply.wait_seconds();
    summary.compile_pool_error = supply.pool_error();
  } catch (...) {
    progress.Finish();
    worker.Stop();
    EndFailedRun(store, run_id);  // what was recorded stays; a rerun resumes
  }
  progress.Finish();
  worker.Stop();
  // Baselines recorded by earlier runs count too (--baselines none measures none).
  const std::string shown = !library.empty()                   ? library
                            : device.backend == Backend::kCuda ? std::string(kBaselineNvidia)
                                                               : std::string(kBaselineClblast);
  for (PairSummary& p : summary.pairs) {
    const std::string shown_library = BaselineFor(shown, Problem::Parse(p.problem_key)).library;
    if (auto b = FastestBaseline(store, device_id, p.problem_key, shown_library)) {
      p.baseline_library = b->library;
      p.baseline_routine = b->routine;
      p.baseline_ms = b->median_ms.value_or(0);
    }
    if (p.has_best && summary.peak_gflops > 0)
      p.fraction_of_peak = p.best_gflops / summary.peak_gflops;
  }
  summary.interrupted = g_interrupted;
  summary.worker_restarts = worker.restarts();
  store.FinishRun(run_id, summary.interrupted ? results_db::RunEnd::kInterrupted
                                                : results_db::RunEnd::kFinished);
  summary.wall_seconds = Seconds(start);
  return summary;
}

}  // namespace beast
