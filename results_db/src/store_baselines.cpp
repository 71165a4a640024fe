// Reading vendor-library baselines: the rows of Store::Baselines, and the
// speed-up of each queried measurement over each library's fastest ok
// baseline on its device and problem.
#include <map>
#include <utility>

#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {
namespace {

// ?1 device id, ?2 problem key, ?3 library, ?4 status; NULL matches all.
const char kBaselinesSql[] = R"SQL(
SELECT b.id, b.run_id, b.device_id, d.backend, d.name, b.problem_id, p.key, b.library,
       b.routine, b.status, b.samples_json, b.median_ms, b.spread, b.gflops, b.max_error,
       b.error_text, b.library_version, b.measured_at
FROM baselines b
JOIN devices d ON d.id = b.device_id
JOIN problems p ON p.id = b.problem_id
WHERE (?1 IS NULL OR b.device_id = ?1) AND (?2 IS NULL OR p.key = ?2)
  AND (?3 IS NULL OR b.library = ?3) AND (?4 IS NULL OR b.status = ?4)
ORDER BY d.name, b.device_id, p.key, b.library, b.routine)SQL";

// The fastest ok routine per (device, problem, library), first recorded on a tie.
const char kFastestSql[] = R"SQL(
SELECT device_id, problem_id, library, routine, median_ms FROM (
  SELECT device_id, problem_id, library, routine, median_ms,
         ROW_NUMBER() OVER (PARTITION BY device_id, problem_id, library
                            ORDER BY median_ms, id) AS rank_in_library
  FROM baselines WHERE status = 'ok' AND median_ms > 0 AND (?1 IS NULL OR device_id = ?1))
WHERE rank_in_library = 1
ORDER BY device_id, problem_id, library)SQL";

}  // namespace

std::vector<BaselineRow> Store::Baselines(const BaselineFilter& filter) {
  auto& query = impl_->Prepared(kBaselinesSql, "querying baselines");
  internal::StatementScope scope(query);
  query.BindOptionalInt(1, filter.device_id);
  query.BindOptionalText(2, filter.problem_key);
  query.BindOptionalText(3, filter.library);
  query.BindOptionalStatus(4, filter.status);
  std::vector<BaselineRow> rows;
  while (query.Step()) {
    BaselineRow row;
    row.baseline_id = query.ColumnInt(0);
    row.run_id = query.ColumnInt(1);
    row.device_id = query.ColumnInt(2);
    row.backend = query.ColumnText(3);
    row.device_name = query.ColumnText(4);
    row.problem_id = query.ColumnInt(5);
    row.problem_key = query.ColumnText(6);
    row.library = query.ColumnText(7);
    row.routine = query.ColumnText(8);
    row.status = query.ColumnStatus(9);
    row.samples_json = query.ColumnText(10);
    row.median_ms = query.ColumnOptionalDouble(11);
    row.spread = query.ColumnOptionalDouble(12);
    row.gflops = query.ColumnOptionalDouble(13);
    row.max_error = query.ColumnOptionalDouble(14);
    row.error_text = query.ColumnText(15);
    row.library_version = query.ColumnText(16);
    row.measured_at = query.ColumnText(17);
    rows.push_back(std::move(row));
  }
  return rows;
}

void Store::Impl::AttachBaselines(std::vector<ResultRow>& rows, std::optional<int64_t> device_id) {
  if (rows.empty()) return;
  auto& query = Prepared(kFastestSql, "finding the fastest baselines");
  internal::StatementScope scope(query);
  query.BindOptionalInt(1, device_id);
  std::map<std::pair<int64_t, int64_t>, std::vector<BaselineSpeedup>> fastest;
  while (query.Step()) {
    BaselineSpeedup baseline;
    baseline.library = query.ColumnText(2);
    baseline.routine = query.ColumnText(3);
    baseline.median_ms = query.ColumnDouble(4);
    fastest[{query.ColumnInt(0), query.ColumnInt(1)}].push_back(std::move(baseline));
  }
  for (ResultRow& row : rows) {
    auto it = fastest.find({row.device_id, row.problem_id});
    if (it == fastest.end()) continue;
    row.baselines = it->second;
    for (BaselineSpeedup& baseline : row.baselines) {
      if (row.status == beast::Status::kOk && row.median_ms && *row.median_ms > 0) {
        baseline.speedup = baseline.median_ms / *row.median_ms;
      }
    }
  }
}

}  // namespace results_db
