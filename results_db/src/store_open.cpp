// Opening a result database: create it with the embedded schema (all or
// nothing), or check that an existing file is a beast database of a schema
// version this beast reads, upgrading an older one in place; then WAL mode,
// busy timeout and foreign keys.
#include <sqlite3.h>

#include <filesystem>
#include <utility>

#include "beast/core/error.hpp"
#include "database_file.hpp"
#include "results_db/store.hpp"
#include "sqlite_handle.hpp"
#include "store_impl.hpp"
#include "store_migrate.hpp"

namespace results_db {
namespace {

using beast::Error;
using beast::ErrorCode;

const char kSchemaSql[] =
#include "schema_sql.inc"
    ;

// Long enough for another process's measurement or schema creation, short
// enough that a wedged writer is reported rather than waited on forever.
constexpr int kBusyTimeoutMs = 10000;

std::string NotABeastDatabase(const std::string& path) { return path + " is not a beast database"; }

// SQLite's quick_check (every page and record well-formed; unlike
// integrity_check it does not match indexes to their tables, which is what
// makes it cheap enough for every open for writing).
void CheckPages(internal::Connection& connection) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(connection.get(), "PRAGMA quick_check(1)", -1, &stmt, nullptr);
  std::string verdict;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      verdict = text ? reinterpret_cast<const char*>(text) : "";
      rc = SQLITE_OK;
    }
  }
  const std::string error = rc == SQLITE_OK ? "" : sqlite3_errmsg(connection.get());
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK)
    throw Error(ErrorCode::kDamaged, internal::DamagedMessage(connection.path(), error));
  if (verdict != "ok") {
    // One line: "*** in database main ***\nPage 11: ..." becomes "Page 11: ...".
    const std::string header = "*** in database main ***\n";
    if (verdict.rfind(header, 0) == 0) verdict.erase(0, header.size());
    for (char& c : verdict)
      if (c == '\n') c = ' ';
    throw Error(ErrorCode::kDamaged, internal::DamagedMessage(connection.path(), verdict));
  }
}

// The file's identity as its header and catalogue tell it.
struct Header {
  int64_t application_id = 0;
  int64_t user_version = 0;
  int64_t schema_objects = 0;
  // A new or empty file (or an empty SQLite file): beast may create its schema.
  bool IsBlank() const { return application_id == 0 && user_version == 0 && schema_objects == 0; }
};

// Reads one integer; a file that is not SQLite at all fails here with
// SQLITE_NOTADB, which becomes the one-line "not a beast database".
int64_t ReadInt(const internal::Connection& connection, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(connection.get(), sql, -1, &stmt, nullptr);
  int64_t value = 0;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(stmt);
  if (rc == SQLITE_OK) return value;
  const int primary = sqlite3_extended_errcode(connection.get()) & 0xff;
  if (primary == SQLITE_NOTADB) {
    throw Error(ErrorCode::kDatabase, NotABeastDatabase(connection.path()));
  }
  if (primary == SQLITE_CORRUPT) {
    throw Error(ErrorCode::kDamaged,
                internal::DamagedMessage(connection.path(), sqlite3_errmsg(connection.get())));
  }
  internal::ThrowSqlite(connection.get(), connection.path(), "reading the database header");
}

// The three fields are read in one read transaction: another process creating
// or upgrading the schema commits either before or after all three.
Header ReadHeader(internal::Connection& connection) {
  const bool own_transaction = sqlite3_get_autocommit(connection.get()) != 0;
  if (own_transaction) connection.Exec("BEGIN", "reading the database header");
  Header header;
  try {
    header.application_id = ReadInt(connection, "PRAGMA application_id");
    header.user_version = ReadInt(connection, "PRAGMA user_version");
    header.schema_objects = ReadInt(connection, "SELECT count(*) FROM sqlite_master");
  } catch (...) {
    if (own_transaction) sqlite3_exec(connection.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  if (own_transaction) connection.Exec("COMMIT", "reading the database header");
  return header;
}

void CheckHeader(const Header& header, const std::string& path) {
  if (header.application_id != kApplicationId) {
    throw Error(ErrorCode::kDatabase, NotABeastDatabase(path));
  }
  if (header.user_version > kSchemaVersion) {
    throw Error(ErrorCode::kDatabase, path + ": database schema version " +
                                          std::to_string(header.user_version) +
                                          " is newer than this beast (" +
                                          std::to_string(kSchemaVersion) + "): upgrade beast");
  }
  if (header.user_version < 1) {
    throw Error(ErrorCode::kDatabase, path + " is a beast database without a schema version");
  }
}

}  // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&& other) noexcept = default;
Store& Store::operator=(Store&& other) noexcept = default;
Store::~Store() = default;

const std::string& Store::path() const { return impl_->connection.path(); }

namespace {

// Makes the connection's file a current beast database: the schema created
// in a blank file, the file's identity checked (and, before a write, its
// pages), an older schema upgraded, then WAL mode.
void Prepare(internal::Connection& connection, const std::string& path, bool for_writing,
             bool* created_schema) {
  sqlite3_busy_timeout(connection.get(), kBusyTimeoutMs);
  connection.Exec("PRAGMA foreign_keys = ON", "enabling foreign keys");

  Header header = ReadHeader(connection);
  // A reader makes no database of an SQLite file without tables: it is not
  // one (the file is left as it was).
  if (header.IsBlank() && !for_writing) throw Error(ErrorCode::kDatabase, NotABeastDatabase(path));
  if (header.IsBlank()) {
    internal::Transaction transaction(connection);
    // Another process may have created the schema while this one waited for
    // the write lock; the check inside the transaction decides.
    const bool blank = ReadHeader(connection).IsBlank();
    if (blank) connection.Exec(kSchemaSql, "creating the schema");
    transaction.Commit();
    // Only once committed: a write that failed was rolled back, and a marked
    // file is then another process's, made in the moment the lock was free.
    *created_schema = blank;
    header = ReadHeader(connection);
  } else if (for_writing) {
    // A damaged page does not care how the file was last closed.
    CheckPages(connection);
  }
  CheckHeader(header, path);
  if (header.user_version < kSchemaVersion) {
    // An older database is upgraded in place, all or nothing.
    internal::UpgradeSchema(connection);
    header = ReadHeader(connection);
    CheckHeader(header, path);
  }

  // WAL lets readers (query, analysis) run beside a tuning run, and a commit
  // survives a killed process. The mode is stored in the file, so this is a
  // no-op after the first open.
  connection.Exec("PRAGMA journal_mode = WAL", "enabling WAL mode");
  // In WAL mode NORMAL still survives a killed process (a commit is in the WAL
  // file before it returns); only an OS crash or power loss can drop the last
  // few commits, which a resumed run measures again. FULL would fsync on every
  // measurement.
  connection.Exec("PRAGMA synchronous = NORMAL", "setting the sync mode");
}

}  // namespace

// Opens through the door: the file checked as a file first; a file beast
// created, or found empty, and could not make a database of is left as it
// was, and a -wal or -shm that opening a refused file made is removed. A
// beast database this call did not create is left whole, -wal and -shm
// included: another process may have made it between the check and the
// failure, and may be writing into it.
Store Store::OpenFile(const std::string& path, bool for_writing) {
  using internal::FileUse;
  const internal::FileBefore before =
      internal::CheckBeforeOpen(path, for_writing ? FileUse::kWrite : FileUse::kRead);
  std::error_code ignored;
  const bool had_wal = std::filesystem::exists(path + "-wal", ignored);
  const bool had_shm = std::filesystem::exists(path + "-shm", ignored);
  bool created_schema = false;
  try {
    auto impl = std::make_unique<Impl>(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    Prepare(impl->connection, path, for_writing, &created_schema);
    return Store(std::move(impl));
  } catch (...) {
    // A beast database this call did not make the schema of is another's
    // or was one before: SQLite removes its -wal and -shm at the last
    // close, and they are not ours to remove while another holds them.
    if (!created_schema && internal::IsMarkedBeast(path)) throw;
    if (!before.existed) {
      internal::RemoveCreated(path);
    } else {
      if (!had_wal) std::filesystem::remove(path + "-wal", ignored);
      if (!had_shm) std::filesystem::remove(path + "-shm", ignored);
      if (before.empty) std::filesystem::resize_file(path, 0, ignored);
    }
    throw;
  }
}

Store Store::Open(const std::string& path) { return OpenFile(path, true); }

Store Store::OpenExisting(const std::string& path) { return OpenFile(path, false); }

}  // namespace results_db
