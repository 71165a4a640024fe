// Upgrading an older result database in place (see store_migrate.hpp and
// results_db/migrations/README.md).
#include "store_migrate.hpp"

#include "beast/core/error.hpp"
#include "results_db/store.hpp"

namespace results_db::internal {
namespace {

using beast::Error;
using beast::ErrorCode;

int64_t UserVersion(const Connection& connection) {
  sqlite3_stmt* stmt = nullptr;
  int64_t version = -1;
  if (sqlite3_prepare_v2(connection.get(), "PRAGMA user_version", -1, &stmt, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    version = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  if (version < 0) ThrowSqlite(connection.get(), connection.path(), "reading the schema version");
  return version;
}

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> migrations = {
#include "migrations_sql.inc"
  };
  return migrations;
}

void UpgradeSchema(Connection& connection) {
  Transaction transaction(connection);
  int64_t version = UserVersion(connection);
  for (const Migration& migration : Migrations()) {
    if (migration.version <= version) continue;
    if (migration.version != version + 1) {
      throw Error(ErrorCode::kDatabase, connection.path() + ": no migration from schema version " +
                                            std::to_string(version) + " to " +
                                            std::to_string(version + 1));
    }
    connection.Exec(migration.sql, std::string("upgrading from schema version ") +
                                       std::to_string(version) + " with " + migration.name);
    version = UserVersion(connection);
    if (version != migration.version) {
      throw Error(ErrorCode::kDatabase, std::string("migration ") + migration.name +
                                            " left schema version " + std::to_string(version));
    }
  }
  if (version < kSchemaVersion) {
    throw Error(ErrorCode::kDatabase, connection.path() + ": no migration from schema version " +
                                          std::to_string(version) + " to " +
                                          std::to_string(kSchemaVersion));
  }
  transaction.Commit();
}

}  // namespace results_db::internal
