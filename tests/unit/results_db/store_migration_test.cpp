// Tests of schema migrations on real database files: files created with the
// frozen first and second schemas (tests/data/schema_v1.sql, schema_v2.sql)
// and holding measurements are upgraded in place when the store opens them,
// keep their data, and end with the same schema as a fresh file (every
// object's SQL, comments and layout aside, and every table's columns); a
// failed upgrade leaves the file as it was; a newer file is refused; two
// stores opening one old file at once both work.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "support/sqlite_rows.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using beast::testing::SqlRows;
using testing_util::Device;
using testing_util::StoreTest;

const char kGemm[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// SQL text without comments, with one space for each run of whitespace and
// none beside parentheses and commas: the stored CREATE text of a table that
// ALTER TABLE extended compares equal to the one written out in schema.sql.
std::string NormalizeSql(const std::string& sql) {
  std::string out;
  bool quoted = false, pending_space = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (!quoted && c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
      pending_space = true;
      continue;
    }
    if (!quoted && (c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
      pending_space = true;
      continue;
    }
    bool tight = c == '(' || c == ')' || c == ',';
    if (pending_space && !out.empty() && !tight && out.back() != '(' && out.back() != ',' &&
        !quoted) {
      out += ' ';
    }
    pending_space = false;
    if (c == '\'') quoted = !quoted;
    out += c;
  }
  return out;
}

// The schema of a file: each object's type, name and normalized SQL; each
// table's columns (name, type, not null, default, primary key), foreign keys
// and indexes; and the header's application id and version.
std::vector<std::string> SchemaOf(const std::string& path) {
  std::vector<std::string> schema = SqlRows(path, "PRAGMA application_id");
  for (const auto& row : SqlRows(path, "PRAGMA user_version")) schema.push_back("version " + row);
  std::vector<std::string> tables;
  for (const std::string& row : SqlRows(path,
                                        "SELECT type, name, tbl_name, sql FROM sqlite_master "
                                        "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")) {
    // type|name|tbl_name|sql: only the SQL may hold a '|'.
    const size_t name_at = row.find('|') + 1;
    const size_t table_at = row.find('|', name_at) + 1;
    const size_t sql_at = row.find('|', table_at) + 1;
    const std::string type = row.substr(0, name_at - 1);
    const std::string name = row.substr(name_at, table_at - 1 - name_at);
    const std::string table = row.substr(table_at, sql_at - 1 - table_at);
    const std::string sql = row.substr(sql_at);
    schema.push_back(type + " " + name + " on " + table + ": " + NormalizeSql(sql));
    if (type == "table") tables.push_back(name);
  }
  for (const auto& table : tables) {
    for (const auto& row : SqlRows(path, "PRAGMA table_xinfo(" + table + ")"))
      schema.push_back(table + " column " + row);
    for (const auto& row : SqlRows(path, "PRAGMA foreign_key_list(" + table + ")"))
      schema.push_back(table + " foreign key " + row);
    for (const auto& row : SqlRows(path, "PRAGMA index_list(" + table + ")"))
      schema.push_back(table + " index " + row);
  }
  return schema;
}

class StoreMigrationTest : public StoreTest {
 protected:
  // A version-1 file with one run, device, problem, template, two configs and
  // two measurements (one ok, one failed), written with v1's columns only.
  std::string MakeV1(const std::string& name) {
    const std::string path = PathOf(name);
    RawExec(path, ReadFile(std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/schema_v1.sql"));
    RawExec(path, std::string(R"SQL(
      INSERT INTO runs (id, command, beast_version, status) VALUES (1, 'beast tune', '0.1.0', 'finished');
      INSERT INTO devices (id, backend, name, vendor, driver_version, arch, limits_json)
        VALUES (1, 'opencl', 'GPU', 'Vendor', '1.0', 'OpenCL 3.0', '{"clock_mhz": 1500}');
      INSERT INTO problems (id, key, op, flops) VALUES (1, ')SQL") +
                      kGemm + R"SQL(', 'gemm', 524288.0);
      INSERT INTO templates (id, name, hash, source_path) VALUES (1, 'gemm/tiled', 'aaaa', 't.cl.j2');
      INSERT INTO configs (id, template_id, config_key, config_hash, params_json)
        VALUES (1, 1, 'MWG=16', 'h16', '{"MWG": 16}'), (2, 1, 'MWG=32', 'h32', '{"MWG": 32}');
      INSERT INTO measurements (run_id, device_id, problem_id, config_id, is_default, status,
                                samples_json, median_ms, spread, gflops, max_error, compile_ms)
        VALUES (1, 1, 1, 1, 1, 'ok', '[4,4.5]', 4.0, 0.1, 0.131072, 0.0, 50.0);
      INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, error_text)
        VALUES (1, 1, 1, 2, 'compile_error', 'too many resources');
    )SQL");
    return path;
  }
};

TEST_F(StoreMigrationTest, FixtureIsVersionOne) {
  const std::string path = MakeV1("v1.db");
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "1");
  EXPECT_EQ(RawQuery(path, "PRAGMA application_id"), "1111834963");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM measurements"), "2");
}

TEST_F(StoreMigrationTest, OpeningUpgradesInPlaceAndKeepsTheData) {
  const std::string path = MakeV1("v1.db");
  {
    Store store = Store::Open(path);
    EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "9");
    std::vector<ResultRow> rows = store.Query(QueryFilter());
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].config_key, "MWG=16");
    EXPECT_EQ(rows[0].status, beast::Status::kOk);
    EXPECT_EQ(rows[0].median_ms, 4.0);
    EXPECT_EQ(rows[0].speedup_vs_default, 1.0);
    EXPECT_TRUE(rows[0].is_default);
    EXPECT_EQ(rows[1].config_key, "MWG=32");
    EXPECT_EQ(rows[1].error_text, "too many resources");
    EXPECT_TRUE(store.HasMeasurement(1, 1, 1));
    EXPECT_EQ(store.UpsertDevice(Device("GPU")), 1);

    // What version 2 adds works on the upgraded file.
    BaselineRecord baseline;
    baseline.run_id = 1;
    baseline.device_id = 1;
    baseline.problem_id = 1;
    baseline.library = "clblast";
    baseline.routine = "Sgemm";
    baseline.median_ms = 8.0;
    EXPECT_TRUE(store.RecordBaseline(baseline));
    rows = store.Query(QueryFilter());
    ASSERT_EQ(rows[0].baselines.size(), 1u);
    EXPECT_EQ(rows[0].baselines[0].speedup, 2.0);
  }
  // Old rows read '' for what version 1 did not record.
  EXPECT_EQ(RawQuery(path,
                     "SELECT count(*) FROM measurements WHERE compiler = '' AND "
                     "compiler_version = ''"),
            "2");
  EXPECT_EQ(RawQuery(path,
                     "SELECT device_name || ' ' || clock_mhz || ' ' || beast_version || ' ' "
                     "|| template_hash || ' ' || samples_json FROM measurement_provenance "
                     "WHERE status = 'ok'"),
            "GPU 1500 0.1.0 aaaa [4,4.5]");
  // Nor the resources version 3 added.
  EXPECT_EQ(RawQuery(path,
                     "SELECT count(*) FROM measurements WHERE registers IS NULL AND "
                     "spill_bytes IS NULL AND stack_bytes IS NULL AND shared_bytes IS NULL"),
            "2");
  // A second open finds version 9 and changes nothing.
  Store::Open(path);
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "9");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM baselines"), "1");
}

TEST_F(StoreMigrationTest, MigratedSchemaEqualsFreshSchema) {
  const std::string migrated = MakeV1("v1.db");
  const std::string fresh = PathOf("fresh.db");
  Store::Open(migrated);
  Store::Open(fresh);
  std::vector<std::string> fresh_schema = SchemaOf(fresh);
  EXPECT_EQ(SchemaOf(migrated), fresh_schema);
  // The comparison covers what version 2 adds.
  auto has = [&](const std::string& line) {
    for (const auto& l : fresh_schema)
      if (l.rfind(line, 0) == 0) return true;
    return false;
  };
  EXPECT_TRUE(has("version 9"));
  EXPECT_TRUE(has("table confirmations on confirmations: CREATE TABLE confirmations("));
  EXPECT_TRUE(has("table confirmation_results on confirmation_results: CREATE TABLE"));
  EXPECT_TRUE(has("view confirmed_medians on confirmed_medians: CREATE VIEW"));
  EXPECT_TRUE(has("table baselines on baselines: CREATE TABLE baselines("));
  EXPECT_TRUE(has("view measurement_provenance on measurement_provenance: CREATE VIEW"));
  EXPECT_TRUE(has("index baselines_by_run on baselines: CREATE INDEX"));
  EXPECT_TRUE(has("measurements column 16|compiler|TEXT|1|''|0|0"));
  EXPECT_TRUE(has("measurements column 17|compiler_version|TEXT|1|''|0|0"));
  EXPECT_TRUE(has("measurements column 18|registers|INTEGER|0|NULL|0|0"));
  EXPECT_TRUE(has("measurements column 21|shared_bytes|INTEGER|0|NULL|0|0"));
  EXPECT_TRUE(has("index measurements_by_problem on measurements: CREATE INDEX"));
  // The statuses a baseline and a measurement take are checked the same way in
  // both ('compiled' since version 3).
  for (const std::string& path : {migrated, fresh}) {
    RawExec(path,
            "INSERT INTO baselines (run_id, device_id, problem_id, library, routine, status) "
            "SELECT 1, 1, 1, 'clblast', 'Convgemm', 'unsupported'");
    RawExec(path,
            "INSERT OR IGNORE INTO runs (id) VALUES (1); "
            "INSERT OR IGNORE INTO devices (id, backend, name) VALUES (1, 'cuda', 'sm_90'); "
            "INSERT OR IGNORE INTO problems (id, key, op, flops) VALUES (1, 'p', 'gemm', 1); "
            "INSERT OR IGNORE INTO templates (id, name, hash) VALUES (1, 't', 'h'); "
            "INSERT INTO configs (template_id, config_key, config_hash, params_json) "
            "VALUES (1, 'X=1', 'x', '{}'); "
            "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, "
            "registers) SELECT 1, 1, 1, max(id), 'compiled', 32 FROM configs");
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db,
                           "INSERT INTO measurements (run_id, device_id, problem_id, config_id, "
                           "status) SELECT 1, 1, 1, min(id), 'compiled_ok' FROM configs",
                           nullptr, nullptr, nullptr),
              SQLITE_CONSTRAINT)
        << path;
    sqlite3_close(db);
  }
}

TEST_F(StoreMigrationTest, VersionTwoFileKeepsItsRowsIdsAndProvenance) {
  const std::string path = PathOf("v2.db");
  RawExec(path, ReadFile(std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/schema_v2.sql"));
  RawExec(path, std::string(R"SQL(
    INSERT INTO runs (id, command, beast_version, status) VALUES (1, 'beast tune', '0.2.0', 'finished');
    INSERT INTO devices (id, backend, name, driver_version) VALUES (1, 'opencl', 'CPU', '6.0');
    INSERT INTO problems (id, key, op, flops) VALUES (1, ')SQL") +
                    kGemm + R"SQL(', 'gemm', 524288.0);
    INSERT INTO templates (id, name, hash) VALUES (1, 'gemm/tiled', 'bbbb');
    INSERT INTO configs (id, template_id, config_key, config_hash, params_json)
      VALUES (1, 1, 'MWG=16', 'h16', '{"MWG": 16}'), (2, 1, 'MWG=32', 'h32', '{"MWG": 32}');
    INSERT INTO measurements (id, run_id, device_id, problem_id, config_id, is_default, status,
                              median_ms, compile_ms, build_log, compiler, compiler_version)
      VALUES (5, 1, 1, 1, 1, 1, 'ok', 3.0, 20.0, '', 'opencl', 'PoCL 6.0'),
             (9, 1, 1, 1, 2, 0, 'pruned_after_compile', NULL, 25.0, 'log', 'opencl', 'PoCL 6.0');
    INSERT INTO baselines (run_id, device_id, problem_id, library, routine, status, median_ms)
      VALUES (1, 1, 1, 'clblast', 'Sgemm', 'ok', 6.0);
  )SQL");
  const std::string fresh = PathOf("fresh.db");
  {
    Store store = Store::Open(path);
    std::vector<ResultRow> rows = store.Query(QueryFilter());
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].measurement_id, 5);
    EXPECT_EQ(rows[0].speedup_vs_default, 1.0);
    ASSERT_EQ(rows[0].baselines.size(), 1u);
    EXPECT_EQ(rows[0].baselines[0].speedup, 2.0);
    EXPECT_EQ(rows[1].measurement_id, 9);
    EXPECT_EQ(rows[1].status, beast::Status::kPrunedAfterCompile);
    EXPECT_FALSE(rows[1].registers.has_value());
  }
  Store::Open(fresh);
  EXPECT_EQ(SchemaOf(path), SchemaOf(fresh));
  EXPECT_EQ(RawQuery(path,
                     "SELECT group_concat(measurement_id || ' ' || compiler_version || ' ' || "
                     "compile_ms || ' ' || ifnull(registers, 'null'), ', ') FROM "
                     "measurement_provenance"),
            "5 PoCL 6.0 20.0 null, 9 PoCL 6.0 25.0 null");
  EXPECT_EQ(RawQuery(path, "SELECT build_log FROM measurements WHERE id = 9"), "log");
  // The next measurement gets a fresh id, after the copied ones.
  {
    Store store = Store::Open(path);
    MeasurementRecord m;
    m.run_id = 1;
    m.device_id = 1;
    m.problem_id = 1;
    m.config_id = store.UpsertConfig(1, "MWG=64", "h64", "{}");
    m.status = beast::Status::kCompiled;
    m.registers = 64;
    EXPECT_TRUE(store.RecordMeasurement(m));
  }
  EXPECT_EQ(RawQuery(path, "SELECT id FROM measurements WHERE registers = 64"), "10");
}

TEST_F(StoreMigrationTest, NormalizeSqlIgnoresCommentsAndLayoutOnly) {
  EXPECT_EQ(NormalizeSql("CREATE TABLE t (\n  a INT, -- note\n  b TEXT DEFAULT '  x'\n)"),
            "CREATE TABLE t(a INT,b TEXT DEFAULT '  x')");
  EXPECT_NE(NormalizeSql("CREATE TABLE t (a INT)"), NormalizeSql("CREATE TABLE t (a TEXT)"));
}

TEST_F(StoreMigrationTest, FailedUpgradeLeavesTheFileAsItWas) {
  const std::string path = MakeV1("v1.db");
  RawExec(path, "CREATE TABLE baselines (x INTEGER)");  // in the way of the migration
  try {
    Store::Open(path);
    FAIL() << "opened a file whose upgrade failed";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kDatabase);
    EXPECT_EQ(std::string(error.what()),
              path +
                  ": upgrading from schema version 1 with 0002_baselines_provenance.sql: "
                  "table baselines already exists");
  }
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "1");
  EXPECT_EQ(RawQuery(path,
                     "SELECT count(*) FROM pragma_table_info('measurements') "
                     "WHERE name = 'compiler'"),
            "0");  // the ALTER before the failure was rolled back
}

TEST_F(StoreMigrationTest, NewerDatabaseIsRefusedUntouched) {
  const std::string path = MakeV1("v5.db");
  RawExec(path, "PRAGMA user_version = 10");
  try {
    Store::OpenExisting(path);
    FAIL() << "opened a newer database";
  } catch (const beast::Error& error) {
    EXPECT_EQ(std::string(error.what()),
              path + ": database schema version 10 is newer than this beast (9): upgrade beast");
  }
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "10");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM sqlite_master WHERE name = 'baselines'"), "0");
}

TEST_F(StoreMigrationTest, TwoStoresOpeningOneOldFileAtOnce) {
  const std::string path = MakeV1("v1.db");
  std::string errors[2];
  auto open = [&](int i) {
    try {
      Store store = Store::Open(path);
      store.UpsertDevice(Device("CPU" + std::to_string(i)));
    } catch (const std::exception& error) {
      errors[i] = error.what();
    }
  };
  std::thread first(open, 0), second(open, 1);
  first.join();
  second.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "9");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM devices"), "3");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM pragma_table_info('measurements')"), "25");
}

}  // namespace
}  // namespace results_db
