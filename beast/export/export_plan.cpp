// Winners to rendered kernels (export_plan.hpp).
#include "beast/export/export_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/export/export_nearest.hpp"
#include "beast/problem/device.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/space/template_vars.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {

DeviceInfo BindingDevice(const results_db::WinnerRow& row) {
  DeviceInfo device;
  device.backend = ParseBackend(row.backend).value_or(Backend::kOpenCL);
  device.name = row.device_name;
  device.vendor = row.vendor;
  device.driver_version = row.driver_version;
  device.arch = row.arch;
  device.limits = DeviceLimitsFromJson(row.limits_json);
  return device;
}

std::vector<results_db::WinnerRow> OfDevices(std::vector<results_db::WinnerRow> rows,
                                             const std::vector<std::string>& devices) {
  if (devices.empty()) return rows;
  std::vector<results_db::WinnerRow> kept;
  for (auto& row : rows) {
    if (std::find(devices.begin(), devices.end(), row.device_name) != devices.end())
      kept.push_back(std::move(row));
  }
  return kept;
}

void CheckServable(const Problem& problem) {
  // As a tuned math=tf32 winner is not exported (Exportable): the library's
  // shape table has no math mode, so such an entry would be an f32 one.
  if (problem.tf32()) {
    throw Error(ErrorCode::kBadArgument,
                problem.Key() +
                    ": a math=tf32 problem (the library's API has no math mode: ask for the "
                    "f32 problem)");
  }
  // The C API's problem structs hold int sizes (beast_tuned.h).
  for (const auto& [name, value] : problem.Variables()) {
    if (value > std::numeric_limits<int>::max())
      throw Error(ErrorCode::kBadArgument,
                  problem.Key() + ": " + name + "=" + std::to_string(value) +
                      " is more than the library's C API can be called with (its sizes are int, "
                      "at most " +
                      std::to_string(std::numeric_limits<int>::max()) + ")");
  }
}

bool Exportable(const results_db::WinnerRow& row, std::string* why) {
  // The backend first: an imported row's problem is not one of beast's
  // (kt:KERNEL:SIZE) and would not parse.
  const std::optional<Backend> backend = ParseBackend(row.backend);
  if (backend != Backend::kOpenCL && backend != Backend::kCuda) {
    *why = "results of backend " + row.backend + " (imported) are not kernels of beast's templates";
    return false;
  }
  if (Problem::Parse(row.problem_key).tf32()) {
    // The library dispatches on shape and dtype: a caller asking for f32
    // would get TF32 products it never allowed.
    *why =
        "a math=tf32 problem (the library's API has no math mode: an f32 call would get TF32 "
        "products)";
    return false;
  }
  if (backend == Backend::kCuda && !harness::NvrtcAvailable()) {
    *why = "this beast has no NVRTC to compile its CUDA kernel";
    return false;
  }
  return true;
}

// The fastest winner over every template, per (device, problem). Winners()
// comes ordered by device, problem, template name, so a tie keeps the first
// template by name.
std::vector<results_db::WinnerRow> BestPerProblem(std::vector<results_db::WinnerRow> rows,
                                                  bool plain) {
  auto cost = [plain](const results_db::WinnerRow& r) {
    return r.median_ms + (plain ? r.prepare_ms.value_or(0) : 0);
  };
  std::vector<results_db::WinnerRow> best;
  std::map<std::pair<int64_t, int64_t>, size_t> index;
  for (auto& row : rows) {
    auto [it, fresh] = index.emplace(std::make_pair(row.device_id, row.problem_id), best.size());
    if (fresh) {
      best.push_back(std::move(row));
    } else if (cost(row) < cost(best[it->second])) {
      best[it->second] = std::move(row);
    }
  }
  return best;
}

std::vector<ExportedWinner> ExportedWinners(const std::vector<results_db::WinnerRow>& every,
                                            const std::vector<results_db::WinnerRow>& plain) {
  std::map<std::pair<int64_t, int64_t>, results_db::WinnerRow> plain_best;
  for (auto& row : BestPerProblem(plain, true))
    plain_best.emplace(std::make_pair(row.device_id, row.problem_id), std::move(row));
  std::vector<ExportedWinner> out;
  for (auto& row : BestPerProblem(every)) {
    auto it = plain_best.find({row.device_id, row.problem_id});
    // Only convolutions have a prepared call (beast_conv2d_prepare): any
    // other op's calls all run the prepare stages, so its one entry is the
    // plain ranking's.
    if (row.op != "conv2d") {
      out.push_back({it != plain_best.end() ? it->second : row, EntryCalls::kAll});
      continue;
    }
    const bool split =
        row.prepare_ms && it != plain_best.end() &&
        (it->second.template_id != row.template_id || it->second.config_id != row.config_id);
    out.push_back({row, split ? EntryCalls::kPrepared : EntryCalls::kAll});
    if (split) out.push_back({it->second, EntryCalls::kPlain});
  }
  return out;
}

namespace {

class Planner {
 public:
  explicit Planner(const ExportOptions& options)
      : options_(options),
        renderer_(options.python, options.render_script, options.templates_dir) {}

  // What rendered and compiled the kernels: "jinja2 3.1.2", and with CUDA
  // entries NVRTC's version.
  std::string Toolchain(bool cuda) const {
    return renderer_.Version() + (cuda ? "; nvrtc " + harness::NvrtcVersion() : "");
  }

  // row's config rendered for row's problem, or for `target` (a nearest entry).
  PlannedKernel Plan(const results_db::WinnerRow& row, const Problem* target = nullptr) {
    const SpaceSpec& spec = Spec(row.template_name);
    if (spec.hash != row.template_hash) {
      throw Error(ErrorCode::kBadInput,
                  "template " + row.template_name + " changed since it was tuned (hash " +
                      row.template_hash + " in the database, " + spec.hash + " now): re-tune");
    }
    Problem problem = target ? *target : Problem::Parse(row.problem_key);
    DeviceInfo device = BindingDevice(row);
    BindOptions bind;
    bind.ignore_soft = true;  // the tuner may have explored past the soft constraints
    BoundSpace space(spec, problem, device, bind);
    Instance instance = space.Instantiate(Config::ParseKey(row.config_key));

    PlannedKernel k{ExportEntry{}, problem, "", "", "", 0};
    ExportEntry& e = k.entry;
    e.problem_key = problem.Key();
    e.template_name = spec.name;
    e.template_hash = spec.hash;
    e.config_key = instance.config.Key();
    e.kernel_name = spec.kernel_name;
    e.device_name = row.device_name;
    e.device_vendor = row.vendor;
    e.device_driver = row.driver_version;
    e.device_arch = row.arch;
    e.median_ms = row.median_ms;
    e.prepare_ms = row.prepare_ms;
    for (int d = 0; d < 3; ++d) {
      e.global[d] = instance.global[d];
      e.local[d] = instance.local[d];
    }
    e.dynamic_local_bytes = instance.dynamic_local_bytes;
    e.shared_carveout = static_cast<int>(instance.shared_carveout);
    e.before = instance.before;
    e.workspace_bytes = instance.workspace_bytes;
    e.backend = device.backend;
    // The prelude as the tuner compiled it (OpenCL's cl_khr_fp64 pragma for f64).
    std::string source =
        SourcePrelude(problem, device.backend) +
        renderer_.Render(spec.source_rel, TemplateVars(spec, problem, instance, device.backend));
    k.source = "// Generated by beast " BEAST_VERSION " (beast export) from template " + spec.name +
               " (hash " + spec.hash + "), config " + e.config_key + ", problem " + e.problem_key +
               (target ? " (the config tuned for " + row.problem_key + ")" : "") + ", tuned on " +
               e.device_name + ".\n" + source;
    if (device.backend == Backend::kCuda) CompileForCuda(&k);
    return k;
  }

 private:
  // The cubin for the tuning GPU and the PTX of its compute capability. The
  // source compiled when it was tuned, so a failure here is a broken
  // toolchain, not data.
  static void CompileForCuda(PlannedKernel* k) {
    const std::string& arch = k->entry.device_arch;  // "sm_90"
    harness::CudaCompileResult cubin = harness::CompileCuda(k->source, arch, k->entry.kernel_name);
    const std::string compute = "compute_" + arch.substr(arch.find('_') + 1);
    harness::CudaCompileResult ptx = harness::CompileCudaPtx(k->source, compute);
    if (!cubin.ok || !ptx.ok) {
      throw Error(ErrorCode::kEnvironment, "NVRTC cannot compile " + k->entry.template_name + " (" +
                                               k->entry.config_key + ") for " + arch + ": " +
                                               (cubin.ok ? ptx.log : cubin.log));
    }
    k->cubin = std::move(cubin.cubin);
    k->ptx = std::move(ptx.ptx);
    k->ptx_cc = std::atoi(arch.c_str() + arch.find('_') + 1);
  }

  const SpaceSpec& Spec(const std::string& name) {
    auto it = specs_.find(name);
    if (it == specs_.end())
      it = specs_.emplace(name, SpaceSpec::Load(options_.templates_dir, name)).first;
    return it->second;
  }

  const ExportOptions& options_;
  harness::Renderer renderer_;
  std::map<std::string, SpaceSpec> specs_;
};

}  // namespace

ExportPlan PlanExport(const ExportOptions& options) {
  std::vector<Problem> requested;  // parsed first: a typo fails before the slow part
  for (const auto& key : options.requested) {
    requested.push_back(Problem::Parse(key));
    CheckServable(requested.back());
  }
  std::vector<results_db::WinnerRow> every;  // each template's winner per device and problem
  std::vector<results_db::WinnerRow> plain;  // the same, for calls without prepared weights
  {
    results_db::Store store = results_db::Store::OpenExisting(options.db_path);
    every = OfDevices(store.Winners(), options.devices);
    plain = OfDevices(store.Winners(std::nullopt, true), options.devices);
  }
  std::vector<ExportedWinner> winners = ExportedWinners(every, plain);
  if (winners.empty()) {
    throw Error(ErrorCode::kDatabase, options.db_path + ": no ok measurement to export");
  }
  ExportPlan plan;
  std::vector<const ExportedWinner*> exported;
  for (const auto& w : winners) {
    std::string why;
    if (Exportable(w.row, &why)) {
      exported.push_back(&w);
    } else {
      plan.skipped.push_back(w.row.problem_key + " on " + w.row.backend + " device " +
                             w.row.device_name + ": " + why);
    }
  }
  if (exported.empty()) {
    throw Error(ErrorCode::kDatabase, options.db_path +
                                          ": no ok measurement this beast can export (" +
                                          plan.skipped.front() + ")");
  }
  Planner planner(options);
  bool cuda = false;
  for (const auto* w : exported) {
    plan.kernels.push_back(planner.Plan(w->row));
    plan.kernels.back().entry.calls = w->calls;
    cuda = cuda || ParseBackend(w->row.backend) == Backend::kCuda;
  }
  plan.toolchain = planner.Toolchain(cuda);
  if (requested.empty()) return plan;

  NearestPlan nearest = PlanNearest(every, requested, options.templates_dir);
  for (const NearestChoice& choice : nearest.choices) {
    PlannedKernel k = planner.Plan(choice.source, &choice.problem);
    k.entry.nearest = true;
    k.entry.source_problem = choice.source.problem_key;
    k.entry.distance = choice.distance;
    plan.kernels.push_back(std::move(k));
  }
  plan.generic = std::move(nearest.generic);
  return plan;
}

}  // namespace beast
