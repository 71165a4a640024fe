// Measuring a recorded failure again (`beast tune --retry-failed`): the old
// outcome moves to superseded_measurements and the measurements row keeps
// its id with the new outcome, so the history stays and every query, the
// search's trajectory and the report's convergence order see one row per
// config as before.
#include <sqlite3.h>

#include <optional>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {

void Store::SupersedeMeasurement(int64_t measurement_id, const MeasurementRecord& m) {
  if (!beast::IsMeasurementStatus(m.status)) {
    throw beast::Error(beast::ErrorCode::kBadArgument, std::string("a measurement cannot be '") +
                                                           beast::StatusName(m.status) + "'");
  }
  // Both statements or neither: inside the caller's Batch, else one of our own.
  std::optional<Batch> own;
  if (!impl_->in_batch) own.emplace(*this);
  auto& keep = impl_->Prepared(
      "INSERT INTO superseded_measurements (measurement_id, superseded_by_run, run_id, status, "
      "samples_json, median_ms, compile_ms, error_text, build_log, created_at, compiler, "
      "compiler_version, strategy, attempts, prepare_ms, spread, gflops, max_error, registers, "
      "spill_bytes, stack_bytes, shared_bytes) "
      "SELECT id, ?2, run_id, status, samples_json, median_ms, compile_ms, error_text, build_log, "
      "created_at, compiler, compiler_version, strategy, attempts, prepare_ms, spread, gflops, "
      "max_error, registers, spill_bytes, stack_bytes, shared_bytes FROM measurements "
      "WHERE id = ?1",
      "keeping a superseded measurement");
  {
    internal::StatementScope scope(keep);
    keep.BindInt(1, measurement_id);
    keep.BindInt(2, m.run_id);
    keep.Run();
  }
  if (sqlite3_changes(impl_->connection.get()) == 0) {
    throw beast::Error(beast::ErrorCode::kDatabase,
                       path() + ": no measurement with id " + std::to_string(measurement_id));
  }
  // The identity (device, problem, config), is_default and strategy stay:
  // the config is the same point of the same search.
  auto& update = impl_->Prepared(
      "UPDATE measurements SET run_id = ?2, status = ?3, samples_json = ?4, median_ms = ?5, "
      "spread = ?6, gflops = ?7, max_error = ?8, compile_ms = ?9, error_text = ?10, "
      "build_log = ?11, compiler = ?12, compiler_version = ?13, registers = ?14, "
      "spill_bytes = ?15, stack_bytes = ?16, shared_bytes = ?17, attempts = ?18, "
      "prepare_ms = ?19, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
      "recording a measurement again");
  internal::StatementScope scope(update);
  update.BindInt(1, measurement_id);
  update.BindInt(2, m.run_id);
  internal::BindOutcome(update, 3, m);
  update.BindInt(18, m.attempts);
  update.BindOptionalDouble(19, m.prepare_ms);
  update.Run();
  if (own) own->Commit();
}

}  // namespace results_db
