// Private RAII wrappers over the SQLite C API: a connection, a prepared
// statement, a scope that resets a statement, and an immediate transaction.
// Every failure becomes beast::Error(kDatabase) naming the database file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include "beast/core/status.hpp"

namespace results_db::internal {

// "PATH is damaged (SQLite: DETAIL); ..." with the recovery command.
std::string DamagedMessage(const std::string& path, const std::string& detail);

// Throws Error(kDatabase, "PATH: WHAT: sqlite message"), or Error(kDamaged,
// DamagedMessage) when SQLite found the file damaged.
[[noreturn]] void ThrowSqlite(sqlite3* db, const std::string& path, const std::string& what);

// An open sqlite3 connection; closes it on destruction.
class Connection {
 public:
  // flags as for sqlite3_open_v2. Throws when the file cannot be opened.
  Connection(const std::string& path, int flags);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs SQL without results (may hold several statements).
  void Exec(const char* sql, const std::string& what);

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// A prepared statement, reused across calls. Parameters and columns are
// numbered as SQLite numbers them (parameters from 1, columns from 0).
class Statement {
 public:
  Statement(const Connection& connection, const std::string& sql, std::string what);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void BindInt(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindText(int index, const std::string& value);
  void BindNull(int index);
  void BindOptionalInt(int index, const std::optional<int64_t>& value);
  void BindOptionalDouble(int index, const std::optional<double>& value);
  void BindOptionalText(int index, const std::optional<std::string>& value);
  // A status as the schema stores it: its name.
  void BindStatus(int index, beast::Status status);
  void BindOptionalStatus(int index, const std::optional<beast::Status>& status);

  // Steps once: true when a row is ready, false when done. Throws on error.
  bool Step();
  // Steps a statement that returns no rows.
  void Run();
  // Forgets the current execution and every binding.
  void Reset();

  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;
  // A status column; throws Error(kDatabase) for text that names none.
  beast::Status ColumnStatus(int column) const;
  std::optional<double> ColumnOptionalDouble(int column) const;
  std::optional<int64_t> ColumnOptionalInt(int column) const;

 private:
  void CheckBind(int rc);
  const Connection& connection_;
  std::string what_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Resets a statement at both ends of its use, so no statement left half-stepped
// keeps a read transaction open across calls.
class StatementScope {
 public:
  explicit StatementScope(Statement& statement) : statement_(statement) { statement_.Reset(); }
  StatementScope(const StatementScope&) = delete;
  StatementScope& operator=(const StatementScope&) = delete;
  ~StatementScope() { statement_.Reset(); }

 private:
  Statement& statement_;
};

// BEGIN IMMEDIATE (takes the write lock now, waiting up to the busy timeout);
// rolls back on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& connection);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void Commit();

 private:
  Connection& connection_;
  bool open_ = true;
};

}  // namespace results_db::internal
