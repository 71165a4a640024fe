// Listing what a query can filter on (devices, parameter names) and comparing
// two devices on their common problems (see store.hpp).
#include <map>
#include <utility>

#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {
namespace {

// The best of one device per problem over the templates the filter allows;
// the rows come ordered by median within each (problem, template), so the
// first lowest median seen wins a tie. A name held by several device rows
// (drivers, backends), whose timings are not mixed, is compared by the row
// of its newest measurement: the newest run's, the highest id within it, as
// everywhere (a failure measured again by a later run keeps its id).
std::map<std::string, ComparedBest> BestPerProblem(Store& store, const std::string& device,
                                                   QueryFilter filter) {
  filter.device_id.reset();
  filter.device_name = device;
  filter.best_only = true;
  filter.top_k = 0;
  filter.limit = 0;
  const std::vector<ResultRow> rows = store.Query(filter);
  std::pair<int64_t, int64_t> newest{0, 0};  // (run id, measurement id)
  int64_t device_id = 0;
  for (const ResultRow& row : rows) {
    const std::pair<int64_t, int64_t> at{row.run_id, row.measurement_id};
    if (at > newest) {
      newest = at;
      device_id = row.device_id;
    }
  }
  std::map<std::string, ComparedBest> best;
  for (const ResultRow& row : rows) {
    if (!row.median_ms || row.device_id != device_id) continue;
    auto it = best.find(row.problem_key);
    if (it != best.end() && it->second.median_ms <= *row.median_ms) continue;
    ComparedBest entry;
    entry.device_name = row.device_name;
    entry.device_id = row.device_id;
    entry.template_name = row.template_name;
    entry.config_key = row.config_key;
    entry.median_ms = *row.median_ms;
    entry.gflops = row.gflops;
    best[row.problem_key] = std::move(entry);
  }
  return best;
}

}  // namespace

std::vector<DeviceRow> Store::Devices() {
  auto& query = impl_->Prepared(
      "SELECT id, backend, name, vendor, driver_version, arch FROM devices "
      "ORDER BY name, backend, driver_version",
      "listing devices");
  internal::StatementScope scope(query);
  std::vector<DeviceRow> rows;
  while (query.Step()) {
    DeviceRow row;
    row.device_id = query.ColumnInt(0);
    row.backend = query.ColumnText(1);
    row.name = query.ColumnText(2);
    row.vendor = query.ColumnText(3);
    row.driver_version = query.ColumnText(4);
    row.arch = query.ColumnText(5);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::string> Store::ParameterNames(const std::optional<std::string>& template_name) {
  auto& query = impl_->Prepared(
      "SELECT DISTINCT j.key FROM configs c JOIN templates t ON t.id = c.template_id, "
      "json_each(c.params_json) j WHERE (?1 IS NULL OR t.name = ?1) ORDER BY j.key",
      "listing parameter names");
  internal::StatementScope scope(query);
  query.BindOptionalText(1, template_name);
  std::vector<std::string> names;
  while (query.Step()) names.push_back(query.ColumnText(0));
  return names;
}

std::vector<ComparisonRow> Store::Compare(const std::string& device_a, const std::string& device_b,
                                          const QueryFilter& filter) {
  std::map<std::string, ComparedBest> a = BestPerProblem(*this, device_a, filter);
  std::map<std::string, ComparedBest> b = BestPerProblem(*this, device_b, filter);
  std::vector<ComparisonRow> rows;
  for (auto& [problem, best_a] : a) {
    auto it = b.find(problem);
    if (it == b.end() || !(it->second.median_ms > 0)) continue;
    ComparisonRow row;
    row.problem_key = problem;
    row.a = best_a;
    row.b = it->second;
    row.ratio = best_a.median_ms / it->second.median_ms;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace results_db
