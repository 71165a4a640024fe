// Reading the result store: measurements with what they measured and their
// speedup over the template's default config, the best per (device, problem,
// template), and the winners the exporter builds a tuned library from.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {
namespace {

using beast::Error;
using beast::ErrorCode;

// Every measurement joined with its names, filtered by bound parameters
// (?1 problem key, ?2 op, ?3 template name, ?4 device id, ?5 status, ?7
// device name, ?9 template hash; NULL matches all; parameter values from ?20 on, see
// RowsCte), with the median of the default config of the same template
// version on the same device and problem (the first one recorded, if ok),
// its median in the confirmation that stands for its pair, if any (the
// confirmed_medians view, read once), and the default's median in that same
// confirmation when the default took part in it.
const std::string kRowsCte = R"SQL(
WITH confirmed AS MATERIALIZED (
  SELECT measurement_id, confirmed_ms, confirmation_id FROM confirmed_medians
),
result_rows AS (
  SELECT m.id AS measurement_id, m.run_id, m.device_id, d.backend, d.name AS device_name,
         d.vendor, d.driver_version, d.arch, d.limits_json, m.problem_id, p.key AS problem_key, p.op,
         c.template_id, t.name AS template_name, t.hash AS template_hash, t.source_path,
         m.config_id, c.config_key, c.params_json, m.status, m.is_default, m.median_ms,
         m.spread, m.gflops, m.max_error, m.compile_ms, m.error_text, m.registers,
         m.spill_bytes, m.stack_bytes, m.shared_bytes, m.strategy, m.prepare_ms,
         (SELECT dm.median_ms FROM measurements dm JOIN configs dc ON dc.id = dm.config_id
           WHERE dm.device_id = m.device_id AND dm.problem_id = m.problem_id
             AND dc.template_id = c.template_id AND dm.is_default = 1
             AND dm.status = 'ok' AND dm.median_ms > 0
           ORDER BY dm.id LIMIT 1) AS default_ms,
         cm.confirmed_ms,
         (SELECT dcm.confirmed_ms FROM measurements dm JOIN configs dc ON dc.id = dm.config_id
            JOIN confirmed dcm ON dcm.measurement_id = dm.id
           WHERE dm.device_id = m.device_id AND dm.problem_id = m.problem_id
             AND dc.template_id = c.template_id AND dm.is_default = 1
             AND dcm.confirmation_id = cm.confirmation_id
           ORDER BY dm.id LIMIT 1) AS default_confirmed_ms
  FROM measurements m
  LEFT JOIN confirmed cm ON cm.measurement_id = m.id
  JOIN devices d ON d.id = m.device_id
  JOIN problems p ON p.id = m.problem_id
  JOIN configs c ON c.id = m.config_id
  JOIN templates t ON t.id = c.template_id
  WHERE (?1 IS NULL OR p.key = ?1) AND (?2 IS NULL OR p.op = ?2)
    AND (?3 IS NULL OR t.name = ?3) AND (?4 IS NULL OR m.device_id = ?4)
    AND (?5 IS NULL OR m.status = ?5) AND (?7 IS NULL OR d.name = ?7)
    AND (?9 IS NULL OR t.hash = ?9))SQL";

// First parameter number of the PARAM=VALUE conditions: ?20 path, ?21 value, ...
constexpr int kFirstParamMatch = 20;

// The rows CTE with one bound condition per parameter match (the JSON path and
// the value are both bound; only their numbers are written into the SQL). A
// JSON boolean (an imported Kernel Tuner config's) matches the True or
// False its config key shows, and 1 or 0, as SQLite reads it.
std::string RowsCte(size_t param_matches) {
  std::string sql = kRowsCte;
  for (size_t i = 0; i < param_matches; ++i) {
    const std::string path = "?" + std::to_string(kFirstParamMatch + 2 * static_cast<int>(i));
    const std::string value = "?" + std::to_string(kFirstParamMatch + 2 * static_cast<int>(i) + 1);
    sql += "\n    AND (json_extract(c.params_json, " + path + ") = " + value +
           "\n         OR (json_type(c.params_json, " + path + ") = 'true' AND " + value +
           " IN ('True', 'true'))" + "\n         OR (json_type(c.params_json, " + path +
           ") = 'false' AND " + value + " IN ('False', 'false')))";
  }
  return sql + "\n)";
}

// The ?8 best ok rows per (device, problem, template version) — those of the
// confirmation that stands, fastest re-measured median first, then the rest
// by lowest median, first recorded on a tie — kept only for the newest
// version of each template name that has an ok row there: the version of
// its last ok measurement, by run (a row --retry-failed measured again keeps
// its id) then id — not the highest template id: a template edited and then
// put back is its first version again, once a run measures it. An edited template's
// winners replace the old.
// With `plain`, a call without prepared weights runs the prepare stages
// too: rows rank by their time plus prepare_ms (the confirmed ones still
// first: a confirmation re-measures a pair's top configs, picked by time
// alone, so a cheaper transform outside them is not considered).
// With `param_filtered` (parameter matches narrowed result_rows), the newest
// version is found among every ok row of the pair, not only the matching
// ones: a filter must not bring back a version an edit replaced (one asked
// for by its hash, ?9, stays that version).
// The newest version among the rows themselves (they are every ok row of
// the pair unless parameter matches narrowed them).
const char kNewestOfTheseRows[] = R"SQL(,
           FIRST_VALUE(template_id) OVER (PARTITION BY device_id, problem_id, template_name
                                          ORDER BY run_id DESC, measurement_id DESC)
             AS newest_template_id
    FROM result_rows)SQL";
// The newest version among every ok row of the pair that the other filters
// keep, found once per pair.
const char kNewestVersions[] = R"SQL(,
newest_versions AS (
  SELECT device_id, problem_id, template_name, template_id AS newest_template_id FROM (
    SELECT m.device_id, m.problem_id, t.name AS template_name, c.template_id,
           ROW_NUMBER() OVER (PARTITION BY m.device_id, m.problem_id, t.name
                              ORDER BY m.run_id DESC, m.id DESC) AS recency
    FROM measurements m
    JOIN devices d ON d.id = m.device_id
    JOIN problems p ON p.id = m.problem_id
    JOIN configs c ON c.id = m.config_id
    JOIN templates t ON t.id = c.template_id
    WHERE m.status = 'ok' AND m.median_ms IS NOT NULL
      AND (?1 IS NULL OR p.key = ?1) AND (?2 IS NULL OR p.op = ?2)
      AND (?3 IS NULL OR t.name = ?3) AND (?4 IS NULL OR m.device_id = ?4)
      AND (?7 IS NULL OR d.name = ?7) AND (?9 IS NULL OR t.hash = ?9))
  WHERE recency = 1
))SQL";
const char kNewestOfEveryRow[] = R"SQL(,
           nv.newest_template_id
    FROM result_rows JOIN newest_versions nv
      ON nv.device_id = result_rows.device_id AND nv.problem_id = result_rows.problem_id
     AND nv.template_name = result_rows.template_name)SQL";

std::string BestCte(bool plain, bool param_filtered = false) {
  const std::string order = plain ? "confirmed_ms IS NULL, confirmed_ms + COALESCE(prepare_ms, 0), "
                                    "median_ms + COALESCE(prepare_ms, 0)"
                                  : "confirmed_ms IS NULL, confirmed_ms, median_ms";
  return std::string(param_filtered ? kNewestVersions : "") + R"SQL(,
best_rows AS (
  SELECT * FROM (
    SELECT result_rows.*,
           ROW_NUMBER() OVER (PARTITION BY result_rows.device_id, result_rows.problem_id,
                                           result_rows.template_id
                              ORDER BY )SQL" +
         order + R"SQL(,
                                       measurement_id) AS rank_in_version)SQL" +
         (param_filtered ? kNewestOfEveryRow : kNewestOfTheseRows) + R"SQL(
    WHERE status = 'ok' AND median_ms IS NOT NULL)
  WHERE rank_in_version <= ?8 AND template_id = newest_template_id
))SQL";
}

const std::string kResultColumns = R"SQL(
SELECT measurement_id, run_id, device_id, backend, device_name, problem_id, problem_key,
       template_id, template_name, template_hash, config_id, config_key, params_json, status,
       is_default, median_ms, spread, gflops, max_error, compile_ms, default_ms, error_text,
       registers, spill_bytes, stack_bytes, shared_bytes, confirmed_ms, default_confirmed_ms,
       strategy, prepare_ms
)SQL";

const std::string kOrder = R"SQL(
ORDER BY device_name, device_id, problem_key, template_name, template_id,
         median_ms IS NULL, median_ms, measurement_id
LIMIT ?6)SQL";

// The best rows of a group in their rank.
const std::string kBestOrder = R"SQL(
ORDER BY device_name, device_id, problem_key, template_name, template_id, rank_in_version
LIMIT ?6)SQL";

std::string QuerySql(bool best, size_t param_matches) {
  return RowsCte(param_matches) +
         (best ? BestCte(false, param_matches > 0) + kResultColumns + "FROM best_rows" + kBestOrder
               : kResultColumns + "FROM result_rows" + kOrder);
}

// A parameter's value as JSON has it: an integer, a real, or a string.
void BindParamValue(internal::Statement& query, int index, const std::string& value) {
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  long long integer = std::strtoll(begin, &end, 10);
  if (!value.empty() && *end == '\0' && errno == 0) {
    query.BindInt(index, integer);
    return;
  }
  errno = 0;
  double real = std::strtod(begin, &end);
  if (!value.empty() && *end == '\0' && errno == 0 && std::isfinite(real)) {
    query.BindDouble(index, real);
    return;
  }
  query.BindText(index, value);
}

std::string WinnersSql(bool plain) {
  return RowsCte(0) + BestCte(plain) + R"SQL(
SELECT device_id, backend, device_name, vendor, driver_version, arch, problem_id, problem_key,
       op, template_id, template_name, template_hash, source_path, config_id, config_key,
       params_json, median_ms, gflops, default_ms, limits_json, confirmed_ms,
       default_confirmed_ms, prepare_ms
FROM best_rows)SQL" +
         kOrder;
}
const std::string kWinnersSql = WinnersSql(false);
const std::string kPlainWinnersSql = WinnersSql(true);

std::optional<double> Speedup(std::optional<double> default_ms, std::optional<double> median_ms) {
  if (!default_ms || !median_ms || !(*median_ms > 0)) return std::nullopt;
  return *default_ms / *median_ms;
}

// The speedup over the default config, like against like: when the row and
// the default were both re-measured side by side in the confirmation that
// stands, their confirmed medians (which also rank the winner, so a winner is
// never slower than a default it was confirmed against); otherwise their
// first medians.
std::optional<double> SpeedupOverDefault(std::optional<double> default_ms,
                                         std::optional<double> median_ms,
                                         std::optional<double> default_confirmed_ms,
                                         std::optional<double> confirmed_ms) {
  if (default_confirmed_ms && confirmed_ms) return Speedup(default_confirmed_ms, confirmed_ms);
  return Speedup(default_ms, median_ms);
}

}  // namespace

std::vector<ResultRow> Store::Query(const QueryFilter& filter) {
  if (filter.top_k < 0) throw Error(ErrorCode::kBadArgument, "top-k must be positive");
  for (const ParamMatch& match : filter.params) {
    if (match.name.empty() || match.name.find_first_of("\"\\") != std::string::npos) {
      throw Error(ErrorCode::kBadArgument, "not a parameter name: '" + match.name + "'");
    }
  }
  const int64_t top_k = filter.top_k > 0 ? filter.top_k : filter.best_only ? 1 : 0;
  auto& query = impl_->Prepared(QuerySql(top_k > 0, filter.params.size()), "querying measurements");
  internal::StatementScope scope(query);
  query.BindOptionalText(1, filter.problem_key);
  query.BindOptionalText(2, filter.op);
  query.BindOptionalText(3, filter.template_name);
  query.BindOptionalInt(4, filter.device_id);
  query.BindOptionalStatus(5, filter.status);
  query.BindInt(6, filter.limit > 0 ? filter.limit : -1);  // SQLite: negative is no limit
  query.BindOptionalText(7, filter.device_name);
  if (top_k > 0) query.BindInt(8, top_k);
  query.BindOptionalText(9, filter.template_hash);
  for (size_t i = 0; i < filter.params.size(); ++i) {
    int path = kFirstParamMatch + 2 * static_cast<int>(i);
    query.BindText(path, "$.\"" + filter.params[i].name + "\"");
    BindParamValue(query, path + 1, filter.params[i].value);
  }

  std::vector<ResultRow> rows;
  while (query.Step()) {
    ResultRow row;
    row.measurement_id = query.ColumnInt(0);
    row.run_id = query.ColumnInt(1);
    row.device_id = query.ColumnInt(2);
    row.backend = query.ColumnText(3);
    row.device_name = query.ColumnText(4);
    row.problem_id = query.ColumnInt(5);
    row.problem_key = query.ColumnText(6);
    row.template_id = query.ColumnInt(7);
    row.template_name = query.ColumnText(8);
    row.template_hash = query.ColumnText(9);
    row.config_id = query.ColumnInt(10);
    row.config_key = query.ColumnText(11);
    row.params_json = query.ColumnText(12);
    row.status = query.ColumnStatus(13);
    row.is_default = query.ColumnInt(14) != 0;
    row.median_ms = query.ColumnOptionalDouble(15);
    row.spread = query.ColumnOptionalDouble(16);
    row.gflops = query.ColumnOptionalDouble(17);
    row.max_error = query.ColumnOptionalDouble(18);
    row.compile_ms = query.ColumnOptionalDouble(19);
    row.confirmed_ms = query.ColumnOptionalDouble(26);
    const std::optional<double> default_confirmed_ms = query.ColumnOptionalDouble(27);
    row.speedup_vs_default = row.status == beast::Status::kOk
                                 ? SpeedupOverDefault(query.ColumnOptionalDouble(20), row.median_ms,
                                                      default_confirmed_ms, row.confirmed_ms)
                                 : std::nullopt;
    row.speedup_from_confirmed = row.speedup_vs_default && default_confirmed_ms && row.confirmed_ms;
    row.error_text = query.ColumnText(21);
    row.registers = query.ColumnOptionalInt(22);
    row.spill_bytes = query.ColumnOptionalInt(23);
    row.stack_bytes = query.ColumnOptionalInt(24);
    row.shared_bytes = query.ColumnOptionalInt(25);
    row.strategy = query.ColumnText(28);
    row.prepare_ms = query.ColumnOptionalDouble(29);
    rows.push_back(std::move(row));
  }
  impl_->AttachBaselines(rows, filter.device_id);
  return rows;
}

std::vector<WinnerRow> Store::Winners(std::optional<int64_t> device_id, bool plain) {
  auto& query = impl_->Prepared(plain ? kPlainWinnersSql : kWinnersSql, "finding the winners");
  internal::StatementScope scope(query);
  query.BindOptionalInt(4, device_id);
  query.BindInt(6, -1);
  query.BindInt(8, 1);

  std::vector<WinnerRow> rows;
  while (query.Step()) {
    WinnerRow row;
    row.device_id = query.ColumnInt(0);
    row.backend = query.ColumnText(1);
    row.device_name = query.ColumnText(2);
    row.vendor = query.ColumnText(3);
    row.driver_version = query.ColumnText(4);
    row.arch = query.ColumnText(5);
    row.problem_id = query.ColumnInt(6);
    row.problem_key = query.ColumnText(7);
    row.op = query.ColumnText(8);
    row.template_id = query.ColumnInt(9);
    row.template_name = query.ColumnText(10);
    row.template_hash = query.ColumnText(11);
    row.source_path = query.ColumnText(12);
    row.config_id = query.ColumnInt(13);
    row.config_key = query.ColumnText(14);
    row.params_json = query.ColumnText(15);
    row.median_ms = query.ColumnDouble(16);
    row.gflops = query.ColumnOptionalDouble(17);
    row.speedup_vs_default =
        SpeedupOverDefault(query.ColumnOptionalDouble(18), row.median_ms,
                           query.ColumnOptionalDouble(21), query.ColumnOptionalDouble(20));
    row.limits_json = query.ColumnText(19);
    row.prepare_ms = query.ColumnOptionalDouble(22);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace results_db
