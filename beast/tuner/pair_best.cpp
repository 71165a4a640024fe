// A pair's winner for its summary (pair_best.hpp).
#include "beast/tuner/pair_best.hpp"

#include <string>
#include <vector>

namespace beast {
namespace {

// The pair's ok config of lowest median (first recorded on a tie), of this
// template version, whatever a confirmation says; "" when none.
std::string UnconfirmedBest(results_db::Store& store, int64_t device_id, const PlannedPair& pair) {
  results_db::QueryFilter filter;
  filter.problem_key = pair.problem->Key();
  filter.template_name = pair.spec->name;
  filter.device_id = device_id;
  filter.status = Status::kOk;
  for (auto& row : store.Query(filter)) {  // by median
    if (row.template_hash == pair.spec->hash && row.median_ms) return row.config_key;
  }
  return "";
}

}  // namespace

std::optional<results_db::ResultRow> BestOfPair(results_db::Store& store, int64_t device_id,
                                                const PlannedPair& pair) {
  results_db::QueryFilter filter;
  filter.problem_key = pair.problem->Key();
  filter.template_name = pair.spec->name;
  filter.template_hash = pair.spec->hash;  // the version tuned, newest or not
  filter.device_id = device_id;
  filter.best_only = true;
  std::vector<results_db::ResultRow> rows = store.Query(filter);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

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

void SummarizePairBest(results_db::Store& store, int64_t device_id, const PlannedPair& pair,
                       const PairIds& ids, PairSummary* ps) {
  std::optional<results_db::ResultRow> row = BestOfPair(store, device_id, pair);
  if (!row) return;
  ps->has_best = true;
  ps->best_config = row->config_key;
  ps->best_ms = row->median_ms.value_or(0);
  ps->best_prepare_ms = row->prepare_ms;
  ps->best_gflops = row->gflops.value_or(0);
  ps->speedup_vs_default = row->speedup_vs_default.value_or(0);
  ps->speedup_from_confirmed = row->speedup_from_confirmed;
  if (row->confirmed_ms) {
    ps->confirmed_ms = *row->confirmed_ms;
    std::vector<results_db::Confirmation> all =
        store.Confirmations(device_id, ids.problem, ids.template_version);
    ps->confirmed_candidates = all.empty() ? 0 : static_cast<int>(all.back().results.size());
    ps->unconfirmed_best = UnconfirmedBest(store, device_id, pair);
    if (ps->unconfirmed_best == ps->best_config) ps->unconfirmed_best.clear();
  }
}

}  // namespace beast
