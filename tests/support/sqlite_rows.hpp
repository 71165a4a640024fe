// The one SQLite row helper of the C++ tests: read a database file directly,
// as another tool would and independently of the store, as rows of text
// (SqlRows) or one integer (SqlCount), and write to one (SqlExec).
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

namespace beast::testing {

// How long a read waits for a writer's lock (a tune running beside it).
inline constexpr int kSqlBusyTimeoutMs = 2000;

// Each row of a query, read-only, as its columns joined by '|' ("a|b|c"),
// a NULL as "NULL". A database that does not open, a query that does not
// prepare or fails on a row is a test failure (the rows read until then).
inline std::vector<std::string> SqlRows(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db_path << ": "
                  << (db != nullptr ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return rows;
  }
  sqlite3_busy_timeout(db, kSqlBusyTimeoutMs);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  } else {
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::string row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* text = sqlite3_column_text(stmt, i);
        row += (i ? "|" : "") +
               (text != nullptr ? std::string(reinterpret_cast<const char*>(text)) : "NULL");
      }
      rows.push_back(row);
    }
    if (rc != SQLITE_DONE) ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

// The first column of the first row as an integer (0 for a NULL), read-only;
// -1, and no test failure, while the database, its table or the row is not
// there (a tune running beside it writes them later).
inline int64_t SqlCount(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, kSqlBusyTimeoutMs);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

// Runs SQL (statements separated by ';') on a database, read-write, creating
// the file when it is not there. A failure is a test failure, naming the SQL
// and SQLite's message; returns whether it succeeded (ASSERT_TRUE on it stops
// the test).
inline bool SqlExec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db_path << ": "
                  << (db != nullptr ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return false;
  }
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) ADD_FAILURE() << sql << ": " << (message != nullptr ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
  return rc == SQLITE_OK;
}

}  // namespace beast::testing
