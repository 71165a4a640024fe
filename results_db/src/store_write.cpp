// Writing to the result store: insert-or-find of devices, problems, template
// versions and configs; runs; measurements and baselines (first result kept);
// and the
// lookups a resumed run uses to skip what is already measured.
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "samples_json.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {
namespace {

using beast::Error;
using beast::ErrorCode;

// A search's row in `searches`: its key, bound as ?1 ?2 ?3, and the statement
// that makes the row when the search starts, its transfer cutoff one past the
// newest measurement then.
constexpr const char* kSearchKey = "device_id = ?1 AND problem_id = ?2 AND template_id = ?3";
constexpr const char* kStartSearch =
    "INSERT OR IGNORE INTO searches (device_id, problem_id, template_id, transfer_before_id) "
    "SELECT ?1, ?2, ?3, coalesce(max(id), 0) + 1 FROM measurements";

// Runs `statement` on a search's key (and ?4 = `value` when given): the first
// column of its first row, when it returns one.
std::optional<int64_t> OnSearch(internal::Statement& statement, int64_t device_id,
                                int64_t problem_id, int64_t template_id,
                                std::optional<int64_t> value = std::nullopt) {
  internal::StatementScope scope(statement);
  statement.BindInt(1, device_id);
  statement.BindInt(2, problem_id);
  statement.BindInt(3, template_id);
  if (value) statement.BindInt(4, *value);
  if (!statement.Step()) return std::nullopt;
  return statement.ColumnInt(0);
}

// The measured part of a device's limits_json (its keys ending "_measured"
// or "_method", in its order, null values left out), empty when it has none
// or is no JSON object.
nlohmann::ordered_json MeasuredLimits(const std::string& limits_json) {
  const nlohmann::ordered_json limits = nlohmann::ordered_json::parse(limits_json, nullptr, false);
  nlohmann::ordered_json measured = nlohmann::ordered_json::object();
  if (!limits.is_object()) return measured;
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const auto& [key, value] : limits.items())
    if (!value.is_null() && (ends_with(key, "_measured") || ends_with(key, "_method")))
      measured[key] = value;
  return measured;
}

// Inserts unless the identity exists (ON CONFLICT on the UNIQUE key only, so a
// NOT NULL or foreign-key violation still fails), then finds the row's id.
int64_t InsertOrFind(const internal::Connection& connection, internal::Statement& insert,
                     internal::Statement& find) {
  insert.Run();
  if (sqlite3_changes(connection.get()) > 0) return sqlite3_last_insert_rowid(connection.get());
  if (!find.Step()) {
    throw Error(ErrorCode::kDatabase,
                connection.path() + ": a row that conflicted on insert is gone");
  }
  return find.ColumnInt(0);
}

}  // namespace

namespace internal {

void BindOutcome(Statement& statement, int first, const MeasurementRecord& m) {
  statement.BindStatus(first, m.status);
  statement.BindText(first + 1, SamplesToJson(m.samples_ms));
  statement.BindOptionalDouble(first + 2, m.median_ms);
  statement.BindOptionalDouble(first + 3, m.spread);
  statement.BindOptionalDouble(first + 4, m.gflops);
  statement.BindOptionalDouble(first + 5, m.max_error);
  statement.BindOptionalDouble(first + 6, m.compile_ms);
  statement.BindText(first + 7, m.error_text);
  statement.BindText(first + 8, m.build_log);
  statement.BindText(first + 9, m.compiler);
  statement.BindText(first + 10, m.compiler_version);
  statement.BindOptionalInt(first + 11, m.registers);
  statement.BindOptionalInt(first + 12, m.spill_bytes);
  statement.BindOptionalInt(first + 13, m.stack_bytes);
  statement.BindOptionalInt(first + 14, m.shared_bytes);
}

}  // namespace internal

int64_t Store::UpsertDevice(const DeviceRecord& device) {
  // One write transaction taken at once (BEGIN IMMEDIATE, through the busy
  // timeout): the update below would otherwise upgrade the read the find
  // left open, which SQLite refuses at once, without waiting, when another
  // process wrote meanwhile. Each block's statements are reset before the
  // commit.
  std::optional<Batch> batch;
  if (!impl_->in_batch) batch.emplace(*this);
  int64_t id = 0;
  {
    auto& insert = impl_->Prepared(
        "INSERT INTO devices (backend, name, vendor, driver_version, arch, limits_json) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
        "ON CONFLICT (backend, name, driver_version) DO NOTHING",
        "recording a device");
    auto& find = impl_->Prepared(
        "SELECT id FROM devices WHERE backend = ?1 AND name = ?2 AND driver_version = ?3",
        "finding a device");
    internal::StatementScope insert_scope(insert), find_scope(find);
    insert.BindText(1, beast::BackendName(device.backend));
    insert.BindText(2, device.name);
    insert.BindText(3, device.vendor);
    insert.BindText(4, device.driver_version);
    insert.BindText(5, device.arch);
    insert.BindText(6, device.limits_json);
    find.BindText(1, beast::BackendName(device.backend));
    find.BindText(2, device.name);
    find.BindText(3, device.driver_version);
    id = InsertOrFind(impl_->connection, insert, find);
  }
  // What a later run measured first is added, after what the row holds; what
  // it holds (a null counts as nothing) stays as it is.
  nlohmann::ordered_json missing = nlohmann::ordered_json::object();
  if (const nlohmann::ordered_json measured = MeasuredLimits(device.limits_json);
      !measured.empty()) {
    auto& read = impl_->Prepared("SELECT limits_json FROM devices WHERE id = ?1",
                                 "reading a device's limits");
    internal::StatementScope read_scope(read);
    read.BindInt(1, id);
    if (read.Step()) {
      const nlohmann::json held = nlohmann::json::parse(read.ColumnText(0), nullptr, false);
      if (held.is_object()) {
        for (const auto& [key, value] : measured.items())
          if (!held.contains(key) || held[key].is_null()) missing[key] = value;
      }
    }
  }
  if (!missing.empty()) {
    auto& add = impl_->Prepared(
        "UPDATE devices SET limits_json = json_patch(limits_json, ?2) WHERE id = ?1",
        "adding a device's new measurements");
    internal::StatementScope add_scope(add);
    add.BindInt(1, id);
    add.BindText(2, missing.dump());
    add.Run();
  }
  if (batch) batch->Commit();
  return id;
}

int64_t Store::UpsertProblem(const std::string& key, const std::string& op, double flops) {
  auto& insert = impl_->Prepared(
      "INSERT INTO problems (key, op, flops) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO NOTHING",
      "recording a problem");
  auto& find = impl_->Prepared("SELECT id FROM problems WHERE key = ?1", "finding a problem");
  internal::StatementScope insert_scope(insert), find_scope(find);
  insert.BindText(1, key);
  insert.BindText(2, op);
  insert.BindDouble(3, flops);
  find.BindText(1, key);
  return InsertOrFind(impl_->connection, insert, find);
}

int64_t Store::UpsertTemplate(const std::string& name, const std::string& hash,
                              const std::string& source_path) {
  auto& insert = impl_->Prepared(
      "INSERT INTO templates (name, hash, source_path) VALUES (?1, ?2, ?3) "
      "ON CONFLICT (name, hash) DO NOTHING",
      "recording a template");
  auto& find = impl_->Prepared("SELECT id FROM templates WHERE name = ?1 AND hash = ?2",
                               "finding a template");
  internal::StatementScope insert_scope(insert), find_scope(find);
  insert.BindText(1, name);
  insert.BindText(2, hash);
  insert.BindText(3, source_path);
  find.BindText(1, name);
  find.BindText(2, hash);
  return InsertOrFind(impl_->connection, insert, find);
}

int64_t Store::UpsertConfig(int64_t template_id, const std::string& config_key,
                            const std::string& config_hash, const std::string& params_json) {
  auto& insert = impl_->Prepared(
      "INSERT INTO configs (template_id, config_key, config_hash, params_json) "
      "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (template_id, config_key) DO NOTHING",
      "recording a config");
  auto& find = impl_->Prepared("SELECT id FROM configs WHERE template_id = ?1 AND config_key = ?2",
                               "finding a config");
  internal::StatementScope insert_scope(insert), find_scope(find);
  insert.BindInt(1, template_id);
  insert.BindText(2, config_key);
  insert.BindText(3, config_hash);
  insert.BindText(4, params_json);
  find.BindInt(1, template_id);
  find.BindText(2, config_key);
  return InsertOrFind(impl_->connection, insert, find);
}

int64_t Store::BeginRun(const std::string& command, const std::string& beast_version) {
  auto& insert = impl_->Prepared(
      "INSERT INTO runs (command, beast_version, status) VALUES (?1, ?2, 'running')",
      "starting a run");
  internal::StatementScope scope(insert);
  insert.BindText(1, command);
  insert.BindText(2, beast_version);
  insert.Run();
  return sqlite3_last_insert_rowid(impl_->connection.get());
}

void Store::FinishRun(int64_t run_id, RunEnd end) {
  auto& update = impl_->Prepared(
      "UPDATE runs SET status = ?2, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
      "WHERE id = ?1",
      "finishing a run");
  internal::StatementScope scope(update);
  update.BindInt(1, run_id);
  update.BindText(2, end == RunEnd::kFinished ? "finished" : "interrupted");
  update.Run();
  if (sqlite3_changes(impl_->connection.get()) == 0) {
    throw Error(ErrorCode::kDatabase, path() + ": no run with id " + std::to_string(run_id));
  }
}

int64_t Store::LastRunId() {
  auto& find = impl_->Prepared("SELECT coalesce(max(id), 0) FROM runs", "finding the newest run");
  internal::StatementScope scope(find);
  find.Step();
  return find.ColumnInt(0);
}

bool Store::RecordMeasurement(const MeasurementRecord& m) {
  if (!beast::IsMeasurementStatus(m.status)) {
    throw Error(ErrorCode::kBadArgument,
                std::string("a measurement cannot be '") + beast::StatusName(m.status) + "'");
  }
  // One statement in autocommit mode is one transaction: once this returns the
  // row is in the WAL and survives the process being killed.
  auto& insert = impl_->Prepared(
      "INSERT INTO measurements (run_id, device_id, problem_id, config_id, is_default, status, "
      "samples_json, median_ms, spread, gflops, max_error, compile_ms, error_text, build_log, "
      "compiler, compiler_version, registers, spill_bytes, stack_bytes, shared_bytes, strategy, "
      "attempts, prepare_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21, ?22, ?23) "
      "ON CONFLICT (device_id, problem_id, config_id) DO NOTHING",
      "recording a measurement");
  internal::StatementScope scope(insert);
  insert.BindInt(1, m.run_id);
  insert.BindInt(2, m.device_id);
  insert.BindInt(3, m.problem_id);
  insert.BindInt(4, m.config_id);
  insert.BindInt(5, m.is_default ? 1 : 0);
  internal::BindOutcome(insert, 6, m);
  insert.BindText(21, m.strategy);
  insert.BindInt(22, m.attempts);
  insert.BindOptionalDouble(23, m.prepare_ms);
  insert.Run();
  if (sqlite3_changes(impl_->connection.get()) > 0) return true;
  if (m.is_default) {
    // The default config was already measured as a search point: the kept row
    // is the default's measurement too, and the speedup baseline needs to know.
    auto& mark = impl_->Prepared(
        "UPDATE measurements SET is_default = 1 "
        "WHERE device_id = ?1 AND problem_id = ?2 AND config_id = ?3",
        "marking the default measurement");
    internal::StatementScope mark_scope(mark);
    mark.BindInt(1, m.device_id);
    mark.BindInt(2, m.problem_id);
    mark.BindInt(3, m.config_id);
    mark.Run();
  }
  return false;
}

bool Store::RecordBaseline(const BaselineRecord& b) {
  if (!beast::IsBaselineStatus(b.status)) {
    throw Error(ErrorCode::kBadArgument,
                std::string("a baseline cannot be '") + beast::StatusName(b.status) + "'");
  }
  if (b.library.empty() || b.routine.empty()) {
    throw Error(ErrorCode::kBadArgument, "a baseline needs a library and a routine name");
  }
  auto& insert = impl_->Prepared(
      "INSERT INTO baselines (run_id, device_id, problem_id, library, routine, status, "
      "samples_json, median_ms, spread, gflops, max_error, error_text, library_version) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
      "ON CONFLICT (device_id, problem_id, library, routine) DO NOTHING",
      "recording a baseline");
  internal::StatementScope scope(insert);
  insert.BindInt(1, b.run_id);
  insert.BindInt(2, b.device_id);
  insert.BindInt(3, b.problem_id);
  insert.BindText(4, b.library);
  insert.BindText(5, b.routine);
  insert.BindStatus(6, b.status);
  insert.BindText(7, internal::SamplesToJson(b.samples_ms));
  insert.BindOptionalDouble(8, b.median_ms);
  insert.BindOptionalDouble(9, b.spread);
  insert.BindOptionalDouble(10, b.gflops);
  insert.BindOptionalDouble(11, b.max_error);
  insert.BindText(12, b.error_text);
  insert.BindText(13, b.library_version);
  insert.Run();
  return sqlite3_changes(impl_->connection.get()) > 0;
}

bool Store::HasBaseline(int64_t device_id, int64_t problem_id, const std::string& library,
                        const std::string& routine) {
  auto& find = impl_->Prepared(
      "SELECT 1 FROM baselines WHERE device_id = ?1 AND problem_id = ?2 AND library = ?3 "
      "AND routine = ?4",
      "looking up a baseline");
  internal::StatementScope scope(find);
  find.BindInt(1, device_id);
  find.BindInt(2, problem_id);
  find.BindText(3, library);
  find.BindText(4, routine);
  return find.Step();
}

bool Store::HasMeasurement(int64_t device_id, int64_t problem_id, int64_t config_id) {
  auto& find = impl_->Prepared(
      "SELECT 1 FROM measurements WHERE device_id = ?1 AND problem_id = ?2 AND config_id = ?3",
      "looking up a measurement");
  internal::StatementScope scope(find);
  find.BindInt(1, device_id);
  find.BindInt(2, problem_id);
  find.BindInt(3, config_id);
  return find.Step();
}

std::vector<MeasuredOutcome> Store::MeasuredOutcomes(int64_t device_id, int64_t problem_id,
                                                     int64_t template_id) {
  auto& find = impl_->Prepared(
      "SELECT m.id, c.config_key, m.status, m.median_ms, m.run_id FROM measurements m "
      "JOIN configs c ON c.id = m.config_id "
      "WHERE m.device_id = ?1 AND m.problem_id = ?2 AND c.template_id = ?3 ORDER BY m.id",
      "listing measured outcomes");
  internal::StatementScope scope(find);
  find.BindInt(1, device_id);
  find.BindInt(2, problem_id);
  find.BindInt(3, template_id);
  std::vector<MeasuredOutcome> out;
  while (find.Step()) {
    out.push_back({find.ColumnInt(0), find.ColumnText(1), find.ColumnStatus(2),
                   find.ColumnOptionalDouble(3), device_id, problem_id, find.ColumnInt(4)});
  }
  return out;
}

int64_t Store::TransferCutoff(int64_t device_id, int64_t problem_id, int64_t template_id) {
  Batch batch(*this);
  OnSearch(impl_->Prepared(kStartSearch, "fixing a search's transfer cutoff"), device_id,
           problem_id, template_id);
  const int64_t cutoff =
      OnSearch(impl_->Prepared(
                   std::string("SELECT transfer_before_id FROM searches WHERE ") + kSearchKey,
                   "reading a search's transfer cutoff"),
               device_id, problem_id, template_id)
          .value_or(0);
  batch.Commit();
  return cutoff;
}

int64_t Store::SearchLead(int64_t device_id, int64_t problem_id, int64_t template_id,
                          int64_t proposed) {
  Batch batch(*this);
  // The search's row (its transfer cutoff fixed now, as TransferCutoff
  // would), then its lead: the larger of the one kept and `proposed`.
  OnSearch(impl_->Prepared(kStartSearch, "fixing a search's transfer cutoff"), device_id,
           problem_id, template_id);
  OnSearch(
      impl_->Prepared(
          std::string("UPDATE searches SET lead = max(coalesce(lead, 0), ?4) WHERE ") + kSearchKey,
          "fixing a search's lead"),
      device_id, problem_id, template_id, proposed);
  const int64_t lead =
      OnSearch(impl_->Prepared(std::string("SELECT lead FROM searches WHERE ") + kSearchKey,
                               "reading a search's lead"),
               device_id, problem_id, template_id)
          .value_or(proposed);
  batch.Commit();
  return lead;
}

std::vector<MeasuredOutcome> Store::TemplateOutcomes(const std::string& template_name,
                                                     int64_t before_id) {
  auto& find = impl_->Prepared(
      "SELECT m.id, c.config_key, m.status, m.median_ms, m.device_id, m.problem_id "
      "FROM measurements m JOIN configs c ON c.id = m.config_id "
      "JOIN templates t ON t.id = c.template_id WHERE t.name = ?1 AND m.id < ?2 ORDER BY m.id",
      "listing a template's measurements");
  internal::StatementScope scope(find);
  find.BindText(1, template_name);
  find.BindInt(2, before_id);
  std::vector<MeasuredOutcome> out;
  while (find.Step()) {
    out.push_back({find.ColumnInt(0), find.ColumnText(1), find.ColumnStatus(2),
                   find.ColumnOptionalDouble(3), find.ColumnInt(4), find.ColumnInt(5)});
  }
  return out;
}

std::set<std::string> Store::MeasuredConfigKeys(int64_t device_id, int64_t problem_id,
                                                int64_t template_id) {
  auto& find = impl_->Prepared(
      "SELECT c.config_key FROM measurements m JOIN configs c ON c.id = m.config_id "
      "WHERE m.device_id = ?1 AND m.problem_id = ?2 AND c.template_id = ?3",
      "listing measured configs");
  internal::StatementScope scope(find);
  find.BindInt(1, device_id);
  find.BindInt(2, problem_id);
  find.BindInt(3, template_id);
  std::set<std::string> keys;
  while (find.Step()) keys.insert(find.ColumnText(0));
  return keys;
}

}  // namespace results_db
