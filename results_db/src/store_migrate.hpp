// Schema migrations compiled in from results_db/migrations/NNNN_name.sql, and
// the upgrade of an older database to this beast's schema version.
#pragma once

#include <string>
#include <vector>

#include "sqlite_handle.hpp"

namespace results_db::internal {

struct Migration {
  int version;       // the version it upgrades to (NNNN)
  const char* name;  // "0002_baselines_provenance.sql"
  const char* sql;
};

// Every embedded migration, in version order.
const std::vector<Migration>& Migrations();

// Upgrades the database from its version to kSchemaVersion in one immediate
// transaction (re-reading the version inside it: another process may have
// upgraded the file meanwhile). Throws Error(kDatabase) naming the file and
// the migration that failed; the file is then left as it was.
void UpgradeSchema(Connection& connection);

}  // namespace results_db::internal
