// Confirmations of pairs' winners (results_db/confirmation.hpp): writing one
// with its results, reading a pair's back. Which winner they make is the
// confirmed_medians view's business (schema.sql).
#include <algorithm>
#include <optional>
#include <set>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "samples_json.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"

namespace results_db {
namespace {

using beast::Error;
using beast::ErrorCode;

}  // namespace

int64_t Store::RecordConfirmation(const Confirmation& c) {
  if (c.results.empty()) throw Error(ErrorCode::kBadArgument, "a confirmation without results");
  std::set<int64_t> configs;
  for (const ConfirmationResult& r : c.results) {
    if (!beast::IsConfirmationStatus(r.status)) {
      throw Error(ErrorCode::kBadArgument, std::string("a confirmation candidate cannot be '") +
                                               beast::StatusName(r.status) + "'");
    }
    if (!configs.insert(r.config_id).second) {
      throw Error(ErrorCode::kBadArgument,
                  "config " + std::to_string(r.config_id) + " twice in one confirmation");
    }
  }
  std::optional<Batch> batch;
  if (!impl_->in_batch) batch.emplace(*this);
  auto& insert = impl_->Prepared(
      "INSERT INTO confirmations (run_id, device_id, problem_id, template_id) "
      "VALUES (?1, ?2, ?3, ?4)",
      "recording a confirmation");
  {
    internal::StatementScope scope(insert);
    insert.BindInt(1, c.run_id);
    insert.BindInt(2, c.device_id);
    insert.BindInt(3, c.problem_id);
    insert.BindInt(4, c.template_id);
    insert.Run();
  }
  const int64_t id = sqlite3_last_insert_rowid(impl_->connection.get());
  auto& result = impl_->Prepared(
      "INSERT INTO confirmation_results (confirmation_id, config_id, status, samples_json, "
      "median_ms, spread, error_text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
      "recording a confirmation");
  for (const ConfirmationResult& r : c.results) {
    internal::StatementScope scope(result);
    result.BindInt(1, id);
    result.BindInt(2, r.config_id);
    result.BindStatus(3, r.status);
    result.BindText(4, internal::SamplesToJson(r.samples_ms));
    result.BindOptionalDouble(5, r.median_ms);
    result.BindOptionalDouble(6, r.spread);
    result.BindText(7, r.error_text);
    result.Run();
  }
  if (batch) batch->Commit();
  return id;
}

std::vector<Confirmation> Store::Confirmations(int64_t device_id, int64_t problem_id,
                                               int64_t template_id) {
  auto& query = impl_->Prepared(
      "SELECT k.id, k.run_id, r.config_id, c.config_key, r.status, r.samples_json, r.median_ms, "
      "r.spread, r.error_text FROM confirmations k "
      "JOIN confirmation_results r ON r.confirmation_id = k.id "
      "JOIN configs c ON c.id = r.config_id "
      "WHERE k.device_id = ?1 AND k.problem_id = ?2 AND k.template_id = ?3 "
      "ORDER BY k.id, r.config_id",
      "reading confirmations");
  internal::StatementScope scope(query);
  query.BindInt(1, device_id);
  query.BindInt(2, problem_id);
  query.BindInt(3, template_id);
  std::vector<Confirmation> out;
  while (query.Step()) {
    if (out.empty() || out.back().id != query.ColumnInt(0)) {
      Confirmation c;
      c.id = query.ColumnInt(0);
      c.run_id = query.ColumnInt(1);
      c.device_id = device_id;
      c.problem_id = problem_id;
      c.template_id = template_id;
      out.push_back(std::move(c));
    }
    ConfirmationResult r;
    r.config_id = query.ColumnInt(2);
    r.config_key = query.ColumnText(3);
    r.status = query.ColumnStatus(4);
    r.samples_json = query.ColumnText(5);
    r.median_ms = query.ColumnOptionalDouble(6);
    r.spread = query.ColumnOptionalDouble(7);
    r.error_text = query.ColumnText(8);
    out.back().results.push_back(std::move(r));
  }
  return out;
}

}  // namespace results_db
