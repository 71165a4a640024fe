// The tuning run (tuner.hpp): validate every input, then measure each
// selected config of each (template, problem) pair and record it.
#include "beast/tuner.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <memory>

#include "beast/device_resolver.hpp"
#include "beast/error.hpp"
#include "beast/paths.hpp"
#include "beast/template_vars.hpp"
#include "config_selection.hpp"
#include "harness/opencl_context.hpp"
#include "harness/renderer.hpp"
#include "instance_measure.hpp"
#include "problem_data.hpp"
#include "progress.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

std::atomic<bool> g_interrupted{false};

void OnInterrupt(int) { g_interrupted = true; }

// Restores the previous SIGINT handler when a run ends.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    previous_ = std::signal(SIGINT, OnInterrupt);
  }
  ~InterruptGuard() { std::signal(SIGINT, previous_); }

 private:
  void (*previous_)(int);
};

struct Pair {
  const SpaceSpec* spec;
  const Problem* problem;
  std::unique_ptr<BoundSpace> space;
  Config default_config;
  bool has_default = false;  // the default config is correct for this problem
  std::string no_default_why;
  uint64_t count = 0;
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Everything that can be wrong with the input is found here, before the
// database is touched.
std::vector<Pair> PlanPairs(const std::vector<SpaceSpec>& specs, const TuneOptions& o,
                            const DeviceInfo& device) {
  std::vector<Pair> pairs;
  for (const auto& spec : specs) {
    bool any = false;
    for (const auto& problem : o.problems) {
      if (problem.op() != spec.op) continue;
      if (spec.op == OpKind::kConv2d) {
        bool supported = false;
        for (Layout l : spec.layouts) supported = supported || l == problem.conv().layout;
        if (!supported) continue;
      }
      any = true;
      Pair p{&spec, &problem, std::make_unique<BoundSpace>(spec, problem, device, o.bind), {}, false, "", 0};
      p.count = p.space->Count();
      if (p.count == 0) {
        throw Error(ErrorCode::kEmptySpace, "the space of " + spec.name + " is empty for " + problem.Key() +
                                                ": " + WhyEmpty(p.space->Explain()));
      }
      // The default is the baseline of the speed-ups: it needs to be correct
      // (hard constraints), not one the soft constraints would propose.
      p.default_config = p.space->DefaultConfig();
      p.has_default = p.space->Check(p.default_config, &p.no_default_why, /*hard_only=*/true);
      pairs.push_back(std::move(p));
    }
    if (!any) {
      throw Error(ErrorCode::kBadArgument, "template " + spec.name + " fits none of the problems given (it is a " +
                                               (spec.op == OpKind::kGemm ? "gemm" : "conv2d") + " template)");
    }
  }
  return pairs;
}

}  // namespace

TuneSummary Tune(const TuneOptions& o) {
  auto start = std::chrono::steady_clock::now();
  if (o.templates.empty()) throw Error(ErrorCode::kBadArgument, "no template to tune (--template)");
  if (o.problems.empty()) throw Error(ErrorCode::kBadArgument, "no problem to tune (--problem)");
  Paths paths = Paths::Default();
  std::string templates_dir = o.templates_dir.empty() ? paths.templates_dir : o.templates_dir;
  std::vector<SpaceSpec> specs;
  for (const auto& name : o.templates) specs.push_back(SpaceSpec::Load(templates_dir, name));
  DeviceInfo device = ResolveDevice(o.device);
  std::vector<Pair> pairs = PlanPairs(specs, o, device);

  harness::Renderer renderer(paths.python, paths.render_script, templates_dir);
  harness::OpenCLContext context(device.index);
  results_db::Store store = results_db::Store::Open(o.db_path);
  results_db::DeviceRecord device_record{BackendName(device.backend), device.name, device.vendor,
                                         device.driver_version, device.arch, DeviceLimitsToJson(device.limits)};
  int64_t device_id = store.UpsertDevice(device_record);
  int64_t run_id = store.BeginRun(o.command_line, BEAST_VERSION);
  InterruptGuard guard;

  harness::BenchmarkPlan plan;
  plan.warmup = o.warmup;
  plan.min_reps = o.min_reps;
  plan.max_reps = o.max_reps;
  plan.max_seconds = o.max_seconds_per_config;

  TuneSummary summary;
  summary.device_id = device.Id();
  summary.device_name = device.name;
  std::map<std::string, std::unique_ptr<ProblemData>> data_by_problem;
  for (const Pair& pair : pairs) {
    if (g_interrupted) break;
    const SpaceSpec& spec = *pair.spec;
    const Problem& problem = *pair.problem;
    PairSummary ps;
    ps.template_name = spec.name;
    ps.problem_key = problem.Key();
    ps.space_size = pair.count;
    int64_t problem_id = store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
    int64_t template_id = store.UpsertTemplate(spec.name, spec.hash, spec.source_rel);
    std::vector<Config> configs =
        SelectConfigs(*pair.space, pair.has_default ? &pair.default_config : nullptr, o.max_configs, o.seed);
    if (!pair.has_default && o.progress) {
      std::fprintf(stderr, "%s: the default config does not fit %s (%s); no baseline for speed-ups\n",
                   spec.name.c_str(), problem.Key().c_str(), pair.no_default_why.c_str());
    }
    ps.selected = configs.size();
    std::set<std::string> measured = store.MeasuredConfigKeys(device_id, problem_id, template_id);
    auto& data = data_by_problem[problem.Key()];
    if (!data) data = std::make_unique<ProblemData>(MakeProblemData(problem));
    DeviceProblem on_device = UploadProblem(context, *data);
    const std::string default_key = pair.has_default ? pair.default_config.Key() : "";
    Progress progress(o.progress, spec.name + " " + problem.Key(), configs.size());
    double best_ms = -1, best_gflops = 0;
    for (const Config& config : configs) {
      if (g_interrupted) break;
      std::string key = config.Key();
      if (measured.count(key)) {
        ++ps.skipped;
        progress.Step(true, best_ms, best_gflops);
        continue;
      }
      Instance instance = pair.space->Instantiate(config);
      Outcome outcome;
      try {
        std::string source = renderer.Render(spec.source_rel, TemplateVarsJson(spec, problem, instance, device.backend));
        outcome = MeasureInstance(context, on_device, source, spec.kernel_name, instance, plan);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kBadInput) throw;  // a broken environment stops the run
        outcome.status = "compile_error";          // a template that fails to render is data
        outcome.error_text = std::string("render: ") + e.what();
      }
      summary.compile_seconds += outcome.compile_ms.value_or(0) / 1000.0;
      summary.benchmark_seconds += outcome.benchmark_seconds;
      results_db::MeasurementRecord m;
      m.run_id = run_id;
      m.device_id = device_id;
      m.problem_id = problem_id;
      m.config_id = store.UpsertConfig(template_id, key, config.Hash(), config.ToJson());
      m.is_default = key == default_key;
      m.status = outcome.status;
      m.samples_ms = outcome.samples_ms;
      m.median_ms = outcome.median_ms;
      m.spread = outcome.spread;
      if (outcome.median_ms && *outcome.median_ms > 0) m.gflops = problem.Flops() / (*outcome.median_ms * 1e6);
      m.max_error = outcome.max_error;
      m.compile_ms = outcome.compile_ms;
      m.error_text = outcome.error_text;
      m.build_log = outcome.build_log;
      store.RecordMeasurement(m);
      ++ps.measured;
      bool ok = outcome.status == "ok";
      if (!ok) ++ps.failed;
      if (ok && (best_ms < 0 || *outcome.median_ms < best_ms)) {
        best_ms = *outcome.median_ms;
        best_gflops = m.gflops.value_or(0);
      }
      progress.Step(ok, best_ms, best_gflops);
    }
    progress.Finish();
    results_db::QueryFilter filter;
    filter.problem_key = problem.Key();
    filter.template_name = spec.name;
    filter.device_id = device_id;
    filter.best_only = true;
    for (const auto& row : store.Query(filter)) {
      if (row.template_hash != spec.hash) continue;
      ps.has_best = true;
      ps.best_config = row.config_key;
      ps.best_ms = row.median_ms.value_or(0);
      ps.best_gflops = row.gflops.value_or(0);
      ps.speedup_vs_default = row.speedup_vs_default.value_or(0);
    }
    summary.pairs.push_back(ps);
  }
  summary.interrupted = g_interrupted;
  store.FinishRun(run_id, summary.interrupted ? "interrupted" : "finished");
  summary.wall_seconds = Seconds(start);
  return summary;
}

std::string FormatTuneSummary(const TuneSummary& s) {
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "winners on %s (%s)%s\n", s.device_id.c_str(), s.device_name.c_str(),
                s.interrupted ? " — run interrupted, run the same command again to resume" : "");
  out += line;
  std::snprintf(line, sizeof line, "%-20s %-10s %6s %6s %6s %11s %9s %8s  %s\n", "template", "problem", "space",
                "ran", "failed", "best ms", "GFLOP/s", "speedup", "best config");
  out += line;
  for (const auto& p : s.pairs) {
    std::string short_problem = p.problem_key.substr(0, p.problem_key.find(':'));
    std::string speedup = p.speedup_vs_default > 0 ? std::to_string(p.speedup_vs_default).substr(0, 5) + "x" : "n/a";
    std::snprintf(line, sizeof line, "%-20s %-10s %6llu %6llu %6llu %11.4f %9.2f %8s  %s\n      problem %s\n",
                  p.template_name.c_str(), short_problem.c_str(), (unsigned long long)p.space_size,
                  (unsigned long long)p.measured, (unsigned long long)p.failed, p.best_ms, p.best_gflops,
                  speedup.c_str(), p.has_best ? p.best_config.c_str() : "(none ran ok)", p.problem_key.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "wall %.1f s: compile %.1f s, benchmark %.1f s\n", s.wall_seconds,
                s.compile_seconds, s.benchmark_seconds);
  out += line;
  return out;
}

}  // namespace beast
