// Private state of results_db::Store, shared by the files that implement it:
// the connection and its prepared statements, each prepared once and reused.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "results_db/store.hpp"
#include "sqlite_handle.hpp"

namespace results_db {

struct Store::Impl {
  Impl(const std::string& path, int flags) : connection(path, flags) {}

  // The statement for `sql`, prepared on first use; `what` names the operation
  // in error messages.
  internal::Statement& Prepared(const std::string& sql, const char* what) {
    auto it = statements.find(sql);
    if (it == statements.end()) {
      it = statements.emplace(sql, std::make_unique<internal::Statement>(connection, sql, what))
               .first;
    }
    return *it->second;
  }

  // Sets ResultRow::baselines of each row (store_baselines.cpp); device_id
  // narrows the lookup when every row is of that device.
  void AttachBaselines(std::vector<ResultRow>& rows, std::optional<int64_t> device_id);

  // Declared first so it is destroyed last, after every statement is finalized.
  internal::Connection connection;
  bool in_batch = false;  // a Store::Batch is open
  std::unordered_map<std::string, std::unique_ptr<internal::Statement>> statements;
};

namespace internal {

// Binds the 15 outcome columns of a measurement to the placeholders ?first
// to ?first+14, in this order: status, samples, median, spread, GFLOP/s, max
// error, compile time, error text, build log, compiler, compiler version,
// registers, spill, stack and shared bytes. Recording and superseding a
// measurement share it (store_write.cpp).
void BindOutcome(Statement& statement, int first, const MeasurementRecord& m);

}  // namespace internal

}  // namespace results_db
