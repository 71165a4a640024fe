// Compile-only tuning (compile_only_tuner.hpp): a pool of threads renders and
// compiles the configs of one pair at a time (NVRTC is thread-safe, the
// renderer serializes itself), and this thread records each result as it
// comes, one transaction each, so a killed run keeps what it compiled.
#include "beast/tuner/compile_only_tuner.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/space/post_compile.hpp"
#include "beast/space/template_vars.hpp"
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

// One config's outcome, made on a pool thread.
struct CompileResult {
  const Config* config = nullptr;
  Outcome outcome;
};

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

// Runs `compile` on each of `todo` on up to `threads` threads and hands every
// result to `record` on this thread as it comes. Stops handing out configs
// once `stop` is true; the first exception of a pool thread is rethrown here
// after the others finished.
void CompileAll(const std::vector<const Config*>& todo, unsigned threads,
                const std::atomic<bool>& stop,
                const std::function<CompileResult(const Config&)>& compile,
                const std::function<void(const CompileResult&)>& record) {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<CompileResult> done;
  std::exception_ptr failure;
  std::atomic<size_t> next{0};
  std::atomic<bool> abort{false};
  size_t running = std::min<size_t>(threads, todo.size());
  std::vector<std::thread> pool;
  for (size_t t = 0, n = running; t < n; ++t) {
    pool.emplace_back([&] {
      try {
        for (size_t i = next++; i < todo.size() && !stop && !abort; i = next++) {
          CompileResult result = compile(*todo[i]);
          std::lock_guard<std::mutex> lock(mutex);
          done.push_back(std::move(result));
          ready.notify_one();
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        abort = true;
      }
      std::lock_guard<std::mutex> lock(mutex);
      --running;
      ready.notify_one();
    });
  }
  try {
    while (true) {
      std::deque<CompileResult> batch;
      bool finished = false;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait_for(lock, std::chrono::milliseconds(100),
                       [&] { return !done.empty() || running == 0; });
        batch.swap(done);
        finished = running == 0;
      }
      for (const CompileResult& r : batch) record(r);
      if (finished && batch.empty()) break;
    }
  } catch (...) {
    abort = true;  // the database failed: let the pool finish, then report that
    for (auto& t : pool) t.join();
    throw;
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
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

  void Measure(const PlannedPair& pair, const std::vector<const Config*>& todo,
               const Record& record, const std::atomic<bool>& stop) override {
    CompileAll(
        todo, summary_.compile_threads, stop,
        [&](const Config& c) {
          return CompileResult{&c, CompileOne(pair, c, device_, renderer_, cache_)};
        },
        [&](const CompileResult& r) {
          if (r.outcome.from_cache) {
            ++summary_.programs_from_cache;
          } else {
            ++summary_.programs_compiled;
            summary_.compile_seconds += r.outcome.compile_ms.value_or(0) / 1000.0;
          }
          record(*r.config, r.outcome);
        });
  }

  // The range over everything compiled for this pair, earlier runs included.
  void EndPair(const PlannedPair& pair, const PairIds&, const std::atomic<bool>&,
               PairSummary* ps) override {
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
  const DeviceInfo& device_;
  harness::Renderer& renderer_;
  const harness::ProgramCache* cache_;
  results_db::Store& store_;
  int64_t device_id_;
  TuneSummary& summary_;
};

}  // namespace

TuneSummary TuneCompileOnly(const TuneOptions& o, const std::vector<SpaceSpec>& specs,
                            const DeviceInfo& device, const std::string& templates_dir,
                            const std::atomic<bool>& stop) {
  if (!harness::NvrtcAvailable()) {
    throw Error(ErrorCode::kEnvironment,
                device.Id() +
                    ": compile-only tuning compiles with NVRTC, and this beast was built "
                    "without it (CUDA toolkit not found)");
  }
  const std::vector<PlannedPair> pairs = PlanPairs(specs, o, device);
  TuneSummary summary;
  summary.device_id = device.Id();
  summary.device_name = "compile-only " + device.arch;
  summary.compile_only = true;
  summary.compiler = "nvrtc";
  summary.compiler_version = harness::NvrtcVersion();
  summary.compile_threads = std::max(1u, std::thread::hardware_concurrency());
  summary.post_compile_not_applied = UnappliedPostCompileLine(SpacesOf(pairs), device.backend);
  const Paths paths = Paths::Default();
  harness::Renderer renderer(paths.python, paths.render_script, templates_dir);
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
  std::unique_ptr<harness::ProgramCache> cache;
  if (!o.cache_dir.empty()) cache = std::make_unique<harness::ProgramCache>(o.cache_dir);
  summary.cache_dir = o.cache_dir;
  NvrtcMeasurer measurer(device, renderer, cache.get(), store, device_id, summary);
  TuneLoopContext loop{store,  progress,         device_id,
                       run_id, summary.compiler, summary.compiler_version};
  try {
    summary.pairs = TunePairs(loop, pairs, measurer, stop);
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
