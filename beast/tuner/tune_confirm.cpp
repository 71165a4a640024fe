// Confirming a pair's winner at the end of its tuning (tune_confirm.hpp).
#include "beast/tuner/tune_confirm.hpp"

#include <cstdio>
#include <set>
#include <vector>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/instance_prepare.hpp"

namespace beast {
namespace {

// The pair's K best ok rows of this template version by median (first
// recorded on a tie), whatever a confirmation says.
std::vector<results_db::ResultRow> TopByMedian(ConfirmContext& c, const PlannedPair& pair,
                                               int64_t template_id) {
  results_db::QueryFilter filter;
  filter.problem_key = pair.problem->Key();
  filter.template_name = pair.spec->name;
  filter.device_id = c.device_id;
  filter.status = Status::kOk;
  std::vector<results_db::ResultRow> top;
  for (results_db::ResultRow& row : c.store.Query(filter)) {  // by median, then id
    if (row.template_id != template_id || !row.median_ms) continue;
    top.push_back(std::move(row));
    if (static_cast<int>(top.size()) == c.top) break;
  }
  return top;
}

std::set<int64_t> ConfigIds(const std::vector<results_db::ResultRow>& rows) {
  std::set<int64_t> ids;
  for (const auto& row : rows) ids.insert(row.config_id);
  return ids;
}

}  // namespace

ConfirmStatus ConfirmPair(ConfirmContext& c, const PlannedPair& pair, int64_t problem_id,
                          int64_t template_id, const std::atomic<bool>& stop) {
  std::vector<results_db::ResultRow> top = TopByMedian(c, pair, template_id);
  if (top.size() < 2) return ConfirmStatus::kNothing;
  std::vector<results_db::Confirmation> before =
      c.store.Confirmations(c.device_id, problem_id, template_id);
  if (!before.empty()) {
    std::set<int64_t> compared;
    for (const auto& r : before.back().results) compared.insert(r.config_id);
    if (compared == ConfigIds(top)) return ConfirmStatus::kAlready;
  }
  // Rendered again: the configs may come from an earlier run. One that no
  // longer renders for this space is left out of the comparison.
  ConfirmRequest request;
  request.problem_key = pair.problem->Key();
  request.plan = c.plan;
  request.plan.best_ms = 0;  // no early stop: every candidate is a contender
  std::vector<const results_db::ResultRow*> compared;
  for (const results_db::ResultRow& row : top) {
    try {
      Config config = Config::ParseKey(row.config_key);
      std::string why;
      if (!pair.space->Check(config, &why, /*hard_only=*/true)) continue;
      PreparedInstance p = PrepareInstance(c.renderer, *pair.spec, *pair.problem, *pair.space,
                                           config, c.device.backend);
      if (p.failure) continue;
      request.candidates.push_back(
          {p.request.source, p.request.kernel_name, p.request.geometry, p.request.stages});
      compared.push_back(&row);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kInternal || e.code() == ErrorCode::kEnvironment) throw;
    }
  }
  if (compared.size() < 2) return ConfirmStatus::kNothing;
  if (c.progress) {
    std::fprintf(stderr,
                 "%s: re-measuring its top %zu configs side by side to confirm the winner\n",
                 pair.spec->name.c_str(), compared.size());
  }
  std::optional<std::vector<ConfirmResult>> results =
      c.worker.Confirm(request, c.timeout_seconds, stop);
  if (!results || stop) return ConfirmStatus::kInterrupted;
  results_db::Confirmation record;
  record.run_id = c.run_id;
  record.device_id = c.device_id;
  record.problem_id = problem_id;
  record.template_id = template_id;
  for (size_t i = 0; i < compared.size() && i < results->size(); ++i) {
    const ConfirmResult& r = (*results)[i];
    results_db::ConfirmationResult result;
    result.config_id = compared[i]->config_id;
    result.status = r.status;
    result.samples_ms = r.samples_ms;
    result.error_text = r.error_text;
    if (r.status == Status::kOk && !r.samples_ms.empty()) {
      harness::SampleStats stats = harness::Summarize(r.samples_ms);
      result.median_ms = stats.median;
      result.spread = stats.spread;
    } else if (r.status == Status::kOk) {
      result.status = Status::kRuntimeError;
      result.error_text = "no sample was taken";
    }
    record.results.push_back(std::move(result));
  }
  c.store.RecordConfirmation(record);
  return ConfirmStatus::kDone;
}

}  // namespace beast
