// The JSON summary of a tuning run (tune_json.hpp).
#include "beast/cli/tune_json.hpp"

namespace beast::cli {
namespace {

using Json = nlohmann::ordered_json;

// A positive number, else null (unknown).
Json PositiveOrNull(double v) { return v > 0 ? Json(v) : Json(nullptr); }

// The re-measurement that confirmed the pair's winner; null when none stands.
Json ConfirmationJson(const PairSummary& p) {
  if (p.confirmed_candidates < 2) return nullptr;
  return {
      {"candidates", p.confirmed_candidates},
      {"median_ms", p.confirmed_ms},
      {"this_run", p.confirmed_now},
      {"by_median_alone", p.unconfirmed_best.empty() ? Json(nullptr) : Json(p.unconfirmed_best)}};
}

Json PairJson(const PairSummary& p) {
  Json failures = Json::object();
  for (const auto& [status, n] : p.failures) failures[StatusName(status)] = n;
  Json best = nullptr;
  if (p.has_best) {
    best = {{"config", p.best_config},
            {"median_ms", p.best_ms},
            {"gflops", p.best_gflops},
            {"speedup_vs_default", PositiveOrNull(p.speedup_vs_default)},
            {"speedup_basis", p.speedup_vs_default > 0
                                  ? Json(p.speedup_from_confirmed ? "confirmed" : "median")
                                  : Json(nullptr)},
            {"confirmation", ConfirmationJson(p)}};
  }
  Json baseline = nullptr;
  if (p.baseline_ms > 0) {
    baseline = {
        {"library", p.baseline_library},
        {"routine", p.baseline_routine},
        {"median_ms", p.baseline_ms},
        {"speedup", p.has_best && p.best_ms > 0 ? Json(p.baseline_ms / p.best_ms) : Json(nullptr)}};
  }
  Json registers = nullptr;
  if (p.min_registers >= 0) registers = {{"min", p.min_registers}, {"max", p.max_registers}};
  return {{"template", p.template_name},
          {"problem", p.problem_key},
          {"space_size", p.space_size},
          {"strategy", p.strategy},
          {"selected", p.selected},
          {"measured", p.measured},
          {"seconds", p.seconds},
          {"skipped", p.skipped},
          {"transferred", p.transferred},
          {"failed", p.failed},
          {"failures", failures},
          {"retried", p.retried},
          {"remeasured", p.remeasured},
          {"recovered", p.recovered},
          {"best", best},
          {"baseline", baseline},
          {"tensor_cores", p.tensor_cores},
          {"fraction_of_peak", PositiveOrNull(p.fraction_of_peak)},
          {"bandwidth_bound_gflops", PositiveOrNull(p.bandwidth_bound_gflops)},
          {"fraction_of_bandwidth_bound", PositiveOrNull(p.fraction_of_bandwidth_bound)},
          {"registers", registers}};
}

Json BaselineJson(const BaselineSummary& b) {
  const bool ok = b.status == Status::kOk;
  return {{"problem", b.problem_key},
          {"library", b.library},
          {"routine", b.routine},
          {"status", StatusName(b.status)},
          {"median_ms", ok ? Json(b.median_ms) : Json(nullptr)},
          {"gflops", ok ? Json(b.gflops) : Json(nullptr)},
          {"error", b.error_text},
          {"from_database", b.from_database}};
}

}  // namespace

Json SummaryJson(const TuneSummary& s) {
  Json out = {{"device", s.device_id}, {"device_name", s.device_name}};
  if (!s.devices.empty()) out["devices"] = s.devices;
  if (!s.ranks.empty()) {
    out["ranks"] = nlohmann::ordered_json::array();
    for (const TuneSummary::RankShare& r : s.ranks) {
      out["ranks"].push_back({{"rank", r.rank},
                              {"host", r.host},
                              {"measured", r.measured},
                              {"busy_seconds", r.busy_seconds}});
    }
  }
  out["compile_only"] = s.compile_only;
  if (s.compile_only) {
    out["compiler"] = s.compiler;
    out["compiler_version"] = s.compiler_version;
    out["compile_threads"] = s.compile_threads;
  }
  out["post_compile_not_applied"] =
      s.post_compile_not_applied.empty() ? Json(nullptr) : Json(s.post_compile_not_applied);
  out["interrupted"] = s.interrupted;
  out["empty_spaces"] = s.empty_spaces;
  out["other_layout"] = s.other_layout;
  out["not_applicable"] = s.not_applicable;
  out["job"] = nullptr;
  if (s.job) {
    const JobTotals t = JobTotalsOf(s);
    Json weights = Json::object();
    for (const auto& [key, weight] : s.weights) weights[key] = weight;
    out["job"] = {{"problems", t.problems},
                  {"layers", t.layers},
                  {"weights", weights},
                  {"weighted_best_ms", t.weighted_best_ms},
                  {"weighted_library_ms", t.library_missing == 0 && t.weighted_library_ms > 0
                                              ? Json(t.weighted_library_ms)
                                              : Json(nullptr)},
                  {"no_winner", t.no_winner},
                  {"not_reached", t.not_reached}};
  }
  out["wall_seconds"] = s.wall_seconds;
  out["compile_seconds"] = s.compile_seconds;
  out["first_launch_seconds"] = s.first_launch_seconds;
  out["benchmark_seconds"] = s.benchmark_seconds;
  out["device_busy_fraction"] = s.DeviceBusyFraction();
  out["worker_restarts"] = s.worker_restarts;
  out["programs_compiled"] = s.programs_compiled;
  out["programs_from_cache"] = s.programs_from_cache;
  out["cache_dir"] = s.cache_dir.empty() ? Json(nullptr) : Json(s.cache_dir);
  out["compile_jobs"] = s.compile_jobs;
  out["compile_wait_seconds"] = s.compile_wait_seconds;
  out["proposal_seconds"] = s.proposal_seconds;
  out["confirm_seconds"] = s.confirm_seconds;
  out["peak"] = nullptr;
  const bool tensor_peak =
      s.peak_gflops_tensor[0] > 0 || s.peak_gflops_tensor[1] > 0 || s.peak_gflops_tensor[2] > 0;
  if (s.peak_gflops > 0 || tensor_peak) {
    out["peak"] = {{"gflops", PositiveOrNull(s.peak_gflops)},
                   {"method", s.peak_method},
                   {"best_variant", s.peak_variant},
                   {"gflops_f64", PositiveOrNull(s.peak_gflops_f64)},
                   {"gflops_tensor",
                    {{"f16", PositiveOrNull(s.peak_gflops_tensor[0])},
                     {"bf16", PositiveOrNull(s.peak_gflops_tensor[1])},
                     {"tf32", PositiveOrNull(s.peak_gflops_tensor[2])}}}};
  }
  out["bandwidth"] = nullptr;
  if (s.bandwidth_gbs > 0) {
    out["bandwidth"] = {{"gbs", s.bandwidth_gbs},
                        {"method", s.bandwidth_method},
                        {"best_variant", s.bandwidth_variant}};
  }
  out["baselines"] = Json::array();
  for (const auto& b : s.baselines) out["baselines"].push_back(BaselineJson(b));
  out["pairs"] = Json::array();
  for (const auto& p : s.pairs) out["pairs"].push_back(PairJson(p));
  return out;
}

}  // namespace beast::cli
