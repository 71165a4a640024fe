// Compile-only tuning (compile_only_tuner.hpp): threads render and compile
// the configs the search proposes next (NVRTC is thread-safe, the renderer
// serializes itself), and this thread records each result in the search's
// order, one transaction each, so a killed run keeps what it compiled.
#include "beast/tuner/compile_only_tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/space/post_compile.hpp"
#include "beast/space/template_vars.hpp"
#include "beast/tuner/ahead_work.hpp"
#include "beast/tuner/progress.hpp"
#include "beast/tuner/run_failure.hpp"
#include "beast/tuner/tune_loop.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "harness/cuda/cuda_build.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

CompiledResources FromPtxas(const harness::CudaResources& r) {
  CompiledResources out;
  if (r.registers >= 0) out.registers = r.registers;  // -1: ptxas did not say
  out.spill_bytes = r.spill_store_bytes + r.spill_load_bytes;
  out.stack_bytes = r.stack_bytes;
  out.shared_bytes = r.shared_bytes;
  return out;
}

Outcome CompileOne(const PlannedPair& pair, const Config& config, const DeviceInfo& device,
                   harness::Renderer& renderer, const harness::ProgramCache* cache) {
  Outcome out;
  const SpaceSpec& spec = *pair.spec;
  Instance instance = pair.space->Instantiate(config);
  std::string source;
  try {
    source = renderer.Render(spec.source_rel,
                             TemplateVars(spec, *pair.problem, instance, Backend::kCuda));
  } catch (const harness::RenderTimeout& e) {
    out.status = Status::kTimeout;  // a template whose rendering never ends costs one config
    out.error_text = std::string("render: ") + e.what();
    return out;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kBadInput) throw;  // a broken environment stops the run
    out.status = Status::kCompileError;           // a template that fails to render is data
    out.error_text = std::string("render: ") + e.what();
    return out;
  }
  // Through the program cache: a repeated run, into any database, compiles
  // nothing twice (a source NVRTC rejected is cached with its log too).
  harness::CudaBuild build =
      harness::BuildCudaThroughCache(cache, source, device.arch, spec.kernel_name);
  out.from_cache = build.from_cache;
  const harness::CudaCompileResult& r = build.compiled;
  out.compile_ms = r.compile_ms;
  if (!r.ok) {
    out.status = Status::kCompileError;
    out.build_log = r.log;
    out.error_text = "the NVRTC compile for " + device.arch + " failed (log kept)";
    return out;
  }
  out.resources = FromPtxas(r.resources);
  if (pair.post_compile) {
    if (std::optional<std::string> why = PostCompileViolation(*pair.space, config, out.resources)) {
      out.status = Status::kPrunedAfterCompile;
      out.error_text = *why;
      return out;
    }
  }
  out.status = Status::kCompiled;
  return out;
}

// The measurer of a compile-only run: each pair's configs compiled on every
// core; the range of registers ends the pair.
class NvrtcMeasurer : public ConfigMeasurer {
 public:
  NvrtcMeasurer(const DeviceInfo& device, harness::Renderer& renderer,
                const harness::ProgramCache* cache, results_db::Store& store, int64_t device_id,
                TuneSummary& summary)
      : device_(device),
        renderer_(renderer),
        cache_(cache),
        store_(store),
        device_id_(device_id),
        summary_(summary) {}

  Status Success() const override { return Status::kCompiled; }
  void BeginPair(const PlannedPair&, const PairIds&, double*, double*) override {}

  void Upcoming(const PlannedPair& pair, const std::vector<Config>& configs) override {
    for (const Config& c : configs) ahead_.Want(Id(pair, c), Task(pair, c));
  }

  std::optional<Outcome> Measure(const PlannedPair& pair, const Config& config,
                                 const std::atomic<bool>& stop) override {
    std::optional<Outcome> outcome;
    try {
      outcome = ahead_.Take(Id(pair, config), Task(pair, config), stop);
    } catch (const harness::RenderInterrupted&) {
      return std::nullopt;  // Ctrl-C stopped its render: the run ends interrupted
    }
    if (!outcome) return outcome;
    if (outcome->from_cache) {
      ++summary_.programs_from_cache;
    } else {
      ++summary_.programs_compiled;
      summary_.compile_seconds += outcome->compile_ms.value_or(0) / 1000.0;
    }
    return outcome;
  }

  // The range over everything compiled for this pair, earlier runs included.
  void EndPair(const PlannedPair& pair, const PairIds&, const std::atomic<bool>&,
               PairSummary* ps) override {
    ahead_.DropQueued();
    results_db::QueryFilter filter;
    filter.device_id = device_id_;
    filter.problem_key = pair.problem->Key();
    filter.template_name = pair.spec->name;
    filter.status = Status::kCompiled;
    for (const auto& row : store_.Query(filter)) {
      if (row.template_hash != pair.spec->hash || !row.registers) continue;
      if (ps->min_registers < 0 || *row.registers < ps->min_registers)
        ps->min_registers = *row.registers;
      ps->max_registers = std::max(ps->max_registers, *row.registers);
    }
  }

 private:
  static std::string Id(const PlannedPair& pair, const Config& config) {
    return pair.spec->name + "|" + pair.problem->Key() + "|" + config.Key();
  }
  AheadWork::Task Task(const PlannedPair& pair, const Config& config) {
    return [this, &pair, config] { return CompileOne(pair, config, device_, renderer_, cache_); };
  }

  const DeviceInfo& device_;
  harness::Renderer& renderer_;
  const harness::ProgramCache* cache_;
  results_db::Store& store_;
  int64_t device_id_;
  TuneSummary& summary_;
  AheadWork ahead_{summary_.compile_threads};  // declared last: its threads stop first
};

}  // namespace

TuneSummary TuneCompileOnly(const TuneOptions& given, const std::vector<SpaceSpec>& specs,
                            const DeviceInfo& device, const std::string& templates_dir,
                            std::chrono::steady_clock::time_point deadline,
                            const std::atomic<bool>& stop) {
  // A compile-only run has no times to improve on: --patience would end each
  // problem after its first M configs (and choose the model's order).
  TuneOptions o = given;
  o.patience = 0;
  if (!harness::NvrtcAvailable()) {
    throw Error(ErrorCode::kEnvironment,
                device.Id() +
                    ": compile-only tuning compiles with NVRTC, and this beast was built "
                    "without it (CUDA toolkit not found)");
  }
  TuneSummary summary;
  const std::vector<PlannedPair> pairs = PlanPairs(specs, o, device, &summary.empty_spaces,
                                                   &summary.other_layout, &summary.not_applicable);
  for (const PlannedPair& pair : pairs) summary.planned_problems.insert(pair.problem->Key());
  summary.device_id = device.Id();
  summary.device_name = "compile-only " + device.arch;
  summary.compile_only = true;
  summary.compiler = "nvrtc";
  summary.compiler_version = harness::NvrtcVersion();
  summary.compile_threads = std::max(1u, std::thread::hardware_concurrency());
  summary.post_compile_not_applied = UnappliedPostCompileLine(SpacesOf(pairs), device.backend);
  const Paths paths = Paths::Default();
  harness::Renderer renderer(paths.python, paths.render_script, templates_dir);
  renderer.SetLimits(o.timeout_seconds, &stop);  // Ctrl-C ends a render in flight
  results_db::Store store = results_db::Store::Open(o.db_path);
  // The spec table stands for the device: its name says that nothing ran on it.
  const int64_t device_id =
      store.UpsertDevice({device.backend, summary.device_name, device.vendor, device.driver_version,
                          device.arch, DeviceLimitsToJson(device.limits)});
  const int64_t run_id = store.BeginRun(o.command_line, BEAST_VERSION);
  if (o.progress) {
    std::fprintf(stderr, "compile-only for %s (%s, spec table): NVRTC %s on %u threads\n",
                 device.Id().c_str(), device.name.c_str(), summary.compiler_version.c_str(),
                 summary.compile_threads);
  }
  Progress progress(o.progress, SelectedConfigs(pairs), /*compile_only=*/true, "",
                    o.progress_seconds);
  progress.SetDeadline(deadline);
  std::unique_ptr<harness::ProgramCache> cache;
  if (!o.cache_dir.empty()) cache = std::make_unique<harness::ProgramCache>(o.cache_dir);
  summary.cache_dir = o.cache_dir;
  NvrtcMeasurer measurer(device, renderer, cache.get(), store, device_id, summary);
  TuneLoopContext loop{
      store, progress, device_id, run_id, summary.compiler, summary.compiler_version, o, deadline};
  // Every thread compiles what comes next and the one after.
  loop.lookahead = 2 * summary.compile_threads;
  try {
    summary.pairs = TunePairs(loop, pairs, measurer, stop);
    summary.proposal_seconds = loop.proposal_seconds;
  } catch (...) {
    progress.Finish();
    EndFailedRun(store, run_id);  // what was recorded stays; a rerun resumes
  }
  progress.Finish();
  summary.interrupted = stop;
  store.FinishRun(run_id, summary.interrupted ? results_db::RunEnd::kInterrupted
                                              : results_db::RunEnd::kFinished);
  return summary;
}

}  // namespace beast
