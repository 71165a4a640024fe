// Baselines and peak FLOP/s in a tuning run (tune_baselines.hpp).
#include "beast/tuner/tune_baselines.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "beast/core/error.hpp"
#include "beast/worker/baseline_measure.hpp"
#include "harness/cuda/cuda_library_call.hpp"
#include "harness/cuda/cuda_tensor_peak.hpp"
#include "harness/opencl/clblast_baseline.hpp"

namespace beast {

std::string ResolveBaselineLibrary(const std::string& option, const DeviceInfo& device) {
  if (option == "none") return "";
  if (option == "auto") {
    if (device.backend == Backend::kCuda) return kBaselineNvidia;
    return harness::ClblastAvailable() ? kBaselineClblast : "";
  }
  if (option == kBaselineNvidia) {
    if (device.backend != Backend::kCuda) {
      throw Error(ErrorCode::kBadArgument,
                  "--baselines nvidia: cuBLAS and cuDNN run on CUDA devices, not " + device.Id());
    }
    return kBaselineNvidia;
  }
  if (option == kBaselineClblast) {
    if (!harness::ClblastAvailable()) {
      throw Error(ErrorCode::kBadArgument,
                  "--baselines clblast: this beast was built without CLBlast (install "
                  "libclblast-dev and rebuild, or use --baselines none)");
    }
    if (device.backend != Backend::kOpenCL) {
      throw Error(ErrorCode::kBadArgument,
                  "--baselines clblast: CLBlast runs on OpenCL devices, not " + device.Id());
    }
    return kBaselineClblast;
  }
  throw Error(ErrorCode::kBadArgument,
              "--baselines must be auto, clblast, nvidia or none, not \"" + option + "\"");
}

BaselineChoice BaselineFor(const std::string& set, const Problem& problem) {
  BaselineChoice choice;
  if (set == kBaselineNvidia) {
    const bool gemm = problem.op() == OpKind::kGemm;
    choice.library = gemm ? kBaselineCublas : kBaselineCudnn;
    choice.routine = gemm ? harness::CublasRoutineFor(problem.dtype()) : harness::kCudnnRoutine;
    return choice;
  }
  choice.library = kBaselineClblast;
  choice.routine = harness::ClblastRoutine(problem, &choice.why_not);
  return choice;
}

std::string LibraryDisplayName(const std::string& library) {
  if (library == kBaselineClblast) return "CLBlast";
  if (library == kBaselineCublas) return "cuBLAS";
  if (library == kBaselineCudnn) return "cuDNN";
  return library;
}

std::string LibraryVersion(const std::string& library) {
  if (library == kBaselineClblast) return harness::ClblastVersion();
  if (library == kBaselineCublas) return harness::CublasVersion();
  if (library == kBaselineCudnn) return harness::CudnnVersion();
  return "";
}

std::string LimitsWithMeasuredPeak(const std::string& limits_json,
                                   const harness::PeakFlopsResult& peak) {
  const bool tensor = peak.tensor[0].ok || peak.tensor[1].ok || peak.tensor[2].ok;
  if (!peak.ok && !peak.bandwidth.ok && !peak.fp64.ok && !tensor) return limits_json;
  nlohmann::ordered_json limits =
      nlohmann::ordered_json::parse(limits_json, nullptr, /*allow_exceptions=*/false);
  if (!limits.is_object()) return limits_json;
  if (peak.ok) {
    limits["peak_gflops_measured"] = peak.gflops;
    limits["peak_method"] = peak.method + ", best " + peak.variant;
  }
  if (peak.fp64.ok) {
    limits["peak_gflops_f64_measured"] = peak.fp64.gflops;
    limits["peak_f64_method"] = peak.method + " on double8, best " + peak.fp64.variant;
  }
  for (int i = 0; i < harness::kTensorInputs; ++i) {
    if (!peak.tensor[i].ok) continue;
    const std::string input = harness::TensorInputName(i);
    limits["peak_gflops_tensor_" + input + "_measured"] = peak.tensor[i].gflops;
    limits["peak_tensor_" + input + "_method"] =
        std::string(harness::kCudaTensorPeakMethod) + ", best " + peak.tensor[i].variant;
  }
  if (peak.bandwidth.ok) {
    limits["bandwidth_gbs_measured"] = peak.bandwidth.gbs;
    limits["bandwidth_method"] = peak.bandwidth.method + ", best " + peak.bandwidth.variant;
  }
  return limits.dump();
}

std::optional<results_db::BaselineRow> FastestBaseline(results_db::Store& store, int64_t device_id,
                                                       const std::string& problem_key,
                                                       const std::string& library) {
  results_db::BaselineFilter filter;
  filter.device_id = device_id;
  filter.problem_key = problem_key;
  filter.library = library;
  filter.status = Status::kOk;
  std::optional<results_db::BaselineRow> best;
  for (auto& row : store.Baselines(filter)) {
    if (row.median_ms && (!best || *row.median_ms < *best->median_ms)) best = std::move(row);
  }
  return best;
}

namespace {

BaselineSummary FromRow(const results_db::BaselineRow& row) {
  BaselineSummary s;
  s.problem_key = row.problem_key;
  s.library = row.library;
  s.routine = row.routine;
  s.status = row.status;
  s.median_ms = row.median_ms.value_or(0);
  s.gflops = row.gflops.value_or(0);
  s.error_text = row.error_text;
  s.from_database = true;
  return s;
}

void PrintBaseline(const BaselineSummary& s) {
  std::string what = LibraryDisplayName(s.library) + " " + s.routine;
  if (s.status == Status::kOk) {
    char last[64] = "";
    if (s.last_command_ms > 0)
      std::snprintf(last, sizeof last, " (last command alone %.4f ms)", s.last_command_ms);
    std::fprintf(stderr, "baseline %s: %.4f ms, %.2f GFLOP/s%s%s  (%s)\n", what.c_str(),
                 s.median_ms, s.gflops, last, s.from_database ? " (from the database)" : "",
                 s.problem_key.c_str());
  } else {
    std::fprintf(stderr, "baseline %s: %s%s%s  (%s)\n", what.c_str(), StatusName(s.status),
                 s.error_text.empty() ? "" : ": ", s.error_text.c_str(), s.problem_key.c_str());
  }
}

// The baseline rows of the library's routine the database already holds.
std::vector<BaselineSummary> Recorded(BaselineRunContext& c, const std::string& key,
                                      const BaselineChoice& choice) {
  results_db::BaselineFilter filter;
  filter.device_id = c.device_id;
  filter.problem_key = key;
  filter.library = choice.library;
  std::vector<BaselineSummary> out;
  for (const auto& row : c.store.Baselines(filter)) {
    if (row.routine == choice.routine) out.push_back(FromRow(row));
  }
  return out;
}

// Records `result` and says what the summary shows of it.
BaselineSummary Record(BaselineRunContext& c, const Problem& problem, int64_t problem_id,
                       const BaselineChoice& choice, const harness::BaselineResult& result) {
  results_db::BaselineRecord record;
  record.run_id = c.run_id;
  record.device_id = c.device_id;
  record.problem_id = problem_id;
  record.library = choice.library;
  record.routine = result.routine.empty() ? choice.routine : result.routine;
  record.status = result.status;
  record.samples_ms = result.samples_ms;
  record.median_ms = result.median_ms;
  record.spread = result.spread;
  if (result.median_ms && *result.median_ms > 0)
    record.gflops = problem.Flops() / (*result.median_ms * 1e6);
  record.max_error = result.max_error;
  record.error_text = result.error_text;
  record.library_version = LibraryVersion(choice.library);
  // What the library chose (cuDNN's algorithm) goes with its version.
  if (!result.detail.empty())
    record.library_version += (record.library_version.empty() ? "" : "; ") + result.detail;
  c.store.RecordBaseline(record);
  BaselineSummary s;
  s.problem_key = problem.Key();
  s.library = choice.library;
  s.routine = record.routine;
  s.status = record.status;
  s.median_ms = record.median_ms.value_or(0);
  s.gflops = record.gflops.value_or(0);
  s.error_text = record.error_text;
  s.last_command_ms = result.last_command_median_ms.value_or(0);
  return s;
}

}  // namespace

std::vector<BaselineSummary> EnsureBaselines(BaselineRunContext& c,
                                             const std::vector<const Problem*>& problems,
                                             const std::string& set,
                                             const std::atomic<bool>& stop) {
  std::vector<BaselineSummary> out;
  std::set<std::string> seen;
  for (const Problem* problem : problems) {
    if (stop) break;
    const std::string key = problem->Key();
    if (!seen.insert(key).second) continue;
    const BaselineChoice choice = BaselineFor(set, *problem);
    const int64_t problem_id = c.store.UpsertProblem(key, problem->OpName(), problem->Flops());
    if (c.store.HasBaseline(c.device_id, problem_id, choice.library, choice.routine)) {
      for (BaselineSummary& s : Recorded(c, key, choice)) out.push_back(std::move(s));
      if (c.progress && !out.empty()) PrintBaseline(out.back());
      continue;
    }
    harness::BaselineResult result;
    if (!choice.why_not.empty()) {
      // Nothing to run: recorded so reports say why there is no comparison.
      result.status = Status::kUnsupported;
      result.routine = choice.routine;
      result.error_text = choice.why_not;
    } else {
      BaselineRequest request{key, choice.library, c.plan};
      std::optional<harness::BaselineResult> measured =
          c.worker.MeasureBaseline(request, choice.routine, c.timeout_seconds, stop);
      if (!measured) break;  // interrupted: stays unmeasured, a rerun measures it
      result = std::move(*measured);
    }
    out.push_back(Record(c, *problem, problem_id, choice, result));
    if (c.progress) PrintBaseline(out.back());
  }
  return out;
}

std::vector<BaselineSummary> MeasureRunBaselines(const TuneOptions& o, const std::string& library,
                                                 const std::vector<PlannedPair>& pairs,
                                                 BaselineRunContext context,
                                                 const std::atomic<bool>& stop) {
  if (library.empty()) return {};
  std::vector<const Problem*> problems;
  for (const PlannedPair& pair : pairs) problems.push_back(pair.problem);
  context.timeout_seconds = std::max(o.timeout_seconds, kBaselineTimeoutSeconds);
  return EnsureBaselines(context, problems, library, stop);
}

}  // namespace beast
