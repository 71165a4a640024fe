// How much wall time each (device, problem) took, read back from the record
// timestamps (see Store::TimeSpent): a tuning run records an outcome the
// moment it lands, so the time between a record and the one before it on
// the same device in the same run is what that record cost — its compile,
// runs and validation, or a baseline's or a confirmation's measurement.
#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {

std::vector<TimeSpentRow> Store::TimeSpent() {
  // Every record is an event (run, device, problem, time); each event is
  // charged the gap since the previous event of its run on its device, the
  // first one since the run started (so a run's start-up, its peak
  // measurement included, is charged to the first problem it measured). An
  // outcome --retry-failed replaced is an event still, of its own run and
  // time (the row holds the new one's): else the time of the first attempt
  // went to the next problem of its run.
  auto& query = impl_->Prepared(
      "WITH events AS ("
      "  SELECT run_id, device_id, problem_id, julianday(created_at) AS t FROM measurements"
      "  UNION ALL SELECT run_id, device_id, problem_id, julianday(measured_at) FROM baselines"
      "  UNION ALL SELECT run_id, device_id, problem_id, julianday(created_at) FROM confirmations"
      "  UNION ALL SELECT s.run_id, m.device_id, m.problem_id, julianday(s.created_at)"
      "    FROM superseded_measurements s JOIN measurements m ON m.id = s.measurement_id"
      "), charged AS ("
      "  SELECT e.device_id, e.problem_id,"
      "         e.t - coalesce(lag(e.t) OVER (PARTITION BY e.run_id, e.device_id ORDER BY e.t),"
      "                        julianday(r.started_at)) AS days"
      "  FROM events e JOIN runs r ON r.id = e.run_id"
      ") "
      "SELECT d.name, p.key, sum(max(c.days, 0)) * 86400.0, c.device_id FROM charged c"
      " JOIN devices d ON d.id = c.device_id JOIN problems p ON p.id = c.problem_id"
      " GROUP BY c.device_id, c.problem_id ORDER BY d.name, p.key",
      "summing the time spent per problem");
  internal::StatementScope scope(query);
  std::vector<TimeSpentRow> rows;
  while (query.Step()) {
    TimeSpentRow row;
    row.device_name = query.ColumnText(0);
    row.problem_key = query.ColumnText(1);
    row.seconds = query.ColumnDouble(2);
    row.device_id = query.ColumnInt(3);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace results_db
