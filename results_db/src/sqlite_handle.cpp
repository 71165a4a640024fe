// RAII wrappers over the SQLite C API (see sqlite_handle.hpp).
#include "sqlite_handle.hpp"

#include <utility>

#include "beast/core/error.hpp"

namespace results_db::internal {

using beast::Error;
using beast::ErrorCode;

namespace {

// SQLite's message, or for a full disk one that says so plainly (SQLite says
// "database or disk is full", and a beast database has no size limit).
std::string Explained(sqlite3* db, const std::string& message) {
  if (db != nullptr && (sqlite3_errcode(db) & 0xff) == SQLITE_FULL)
    return "the disk is full (" + message + ")";
  return message;
}

// SQLite found a damaged page (SQLITE_CORRUPT) or a file that stopped
// being a database under it (SQLITE_NOTADB).
bool Damaged(sqlite3* db) {
  const int primary = db != nullptr ? sqlite3_errcode(db) & 0xff : SQLITE_OK;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

}  // namespace

std::string DamagedMessage(const std::string& path, const std::string& detail) {
  return path + " is damaged (SQLite: " + detail +
         "); beast writes nothing into it. Recover what it holds with: sqlite3 " + path +
         " .recover | sqlite3 " + path + ".recovered, then use " + path + ".recovered";
}

void ThrowSqlite(sqlite3* db, const std::string& path, const std::string& what) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  if (Damaged(db)) throw Error(ErrorCode::kDamaged, DamagedMessage(path, message));
  throw Error(ErrorCode::kDatabase, path + ": " + what + ": " + Explained(db, message));
}

Connection::Connection(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(ErrorCode::kDatabase, path + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Connection::~Connection() {
  // Statements are finalized before their connection (members of Store's
  // implementation are destroyed first), so close cannot fail on them.
  sqlite3_close(db_);
}

void Connection::Exec(const char* sql, const std::string& what) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message != nullptr ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    if (Damaged(db_)) throw Error(ErrorCode::kDamaged, DamagedMessage(path_, text));
    throw Error(ErrorCode::kDatabase, path_ + ": " + what + ": " + Explained(db_, text));
  }
}

Statement::Statement(const Connection& connection, const std::string& sql, std::string what)
    : connection_(connection), what_(std::move(what)) {
  int rc = sqlite3_prepare_v3(connection.get(), sql.c_str(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) ThrowSqlite(connection.get(), connection.path(), what_);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::CheckBind(int rc) {
  if (rc != SQLITE_OK) ThrowSqlite(connection_.get(), connection_.path(), what_);
}

void Statement::BindInt(int index, int64_t value) {
  CheckBind(sqlite3_bind_int64(stmt_, index, value));
}

void Statement::BindDouble(int index, double value) {
  CheckBind(sqlite3_bind_double(stmt_, index, value));
}

void Statement::BindText(int index, const std::string& value) {
  CheckBind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                              SQLITE_TRANSIENT));
}

void Statement::BindNull(int index) { CheckBind(sqlite3_bind_null(stmt_, index)); }

void Statement::BindOptionalInt(int index, const std::optional<int64_t>& value) {
  if (value) {
    BindInt(index, *value);
  } else {
    BindNull(index);
  }
}

void Statement::BindOptionalDouble(int index, const std::optional<double>& value) {
  if (value) {
    BindDouble(index, *value);
  } else {
    BindNull(index);
  }
}

void Statement::BindOptionalText(int index, const std::optional<std::string>& value) {
  if (value) {
    BindText(index, *value);
  } else {
    BindNull(index);
  }
}

void Statement::BindStatus(int index, beast::Status status) {
  BindText(index, beast::StatusName(status));
}

void Statement::BindOptionalStatus(int index, const std::optional<beast::Status>& status) {
  if (status) {
    BindStatus(index, *status);
  } else {
    BindNull(index);
  }
}

bool Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  ThrowSqlite(connection_.get(), connection_.path(), what_);
}

void Statement::Run() {
  while (Step()) {
  }
}

void Statement::Reset() {
  // sqlite3_reset repeats the last step's error, which Step already reported.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::string();
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

beast::Status Statement::ColumnStatus(int column) const {
  const std::string text = ColumnText(column);
  std::optional<beast::Status> status = beast::ParseStatus(text);
  if (!status) {
    throw beast::Error(beast::ErrorCode::kDatabase,
                       "a row's status is '" + text + "', which is none that beast knows");
  }
  return *status;
}

std::optional<double> Statement::ColumnOptionalDouble(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt_, column);
}

std::optional<int64_t> Statement::ColumnOptionalInt(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(stmt_, column);
}

Transaction::Transaction(Connection& connection) : connection_(connection) {
  connection_.Exec("BEGIN IMMEDIATE", "starting a transaction");
}

Transaction::~Transaction() {
  // A failed statement may already have rolled back; ROLLBACK then errors, and
  // there is nothing more to undo, so its result is ignored.
  if (open_) sqlite3_exec(connection_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::Commit() {
  connection_.Exec("COMMIT", "committing");
  open_ = false;
}

}  // namespace results_db::internal
