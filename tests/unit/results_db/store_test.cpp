// Tests of results_db::Store on real database files in a temporary folder:
// creating and reopening, refusing files that are not beast databases,
// idempotent upserts, first-result-kept measurements and resume lookups.
// (Queries and winners: store_query_test.cpp.)
#include "results_db/store.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

namespace fs = std::filesystem;
using testing_util::Device;
using testing_util::Failed;
using testing_util::Ok;
using testing_util::StoreTest;

TEST_F(StoreTest, CreatesDatabaseWithBeastIdsAndReopensIt) {
  const std::string path = PathOf("beast.db");
  int64_t device_id = 0;
  {
    Store store = Store::Open(path);
    EXPECT_EQ(store.path(), path);
    device_id = store.UpsertDevice(Device("GPU"));
  }
  EXPECT_EQ(RawQuery(path, "PRAGMA application_id"), "1111834963");  // 0x42454153
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "9");
  EXPECT_EQ(RawQuery(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(
      RawQuery(path,
               "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
               "WHERE type = 'table' ORDER BY name)"),
      "baselines,configs,confirmation_results,confirmations,devices,measurements,problems,runs,"
      "searches,superseded_measurements,templates");

  Store reopened = Store::OpenExisting(path);
  EXPECT_EQ(reopened.UpsertDevice(Device("GPU")), device_id);
}

TEST_F(StoreTest, EmptyFileBecomesBeastDatabase) {
  const std::string path = PathOf("empty.db");
  std::ofstream(path).close();
  Store::Open(path);
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "9");
}

TEST_F(StoreTest, OpenExistingRefusesMissingFile) {
  const std::string path = PathOf("missing.db");
  try {
    Store::OpenExisting(path);
    FAIL() << "opened a missing file";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kNotFound);
    EXPECT_EQ(std::string(error.what()), path + ": no such database file");
  }
  EXPECT_FALSE(fs::exists(path));
}

// A reader does not make a database of an SQLite file without tables (a
// writer may: it is blank); it is left as it was.
TEST_F(StoreTest, OpenExistingRefusesAnSqliteFileWithoutTablesAndWritesNothing) {
  const std::string path = PathOf("blank.db");
  RawExec(path, "PRAGMA page_size = 4096; VACUUM");
  ASSERT_GT(fs::file_size(path), 0u);
  try {
    Store::OpenExisting(path);
    FAIL() << "a reader opened an SQLite file without tables";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kDatabase);
    EXPECT_EQ(std::string(error.what()), path + " is not a beast database");
  }
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM sqlite_master"), "0");
  Store::Open(path);  // a writer makes it one
  EXPECT_NE(RawQuery(path, "SELECT count(*) FROM sqlite_master"), "0");
}

TEST_F(StoreTest, RefusesFilesThatAreNotBeastDatabases) {
  const std::string garbage = PathOf("garbage.db");
  std::ofstream(garbage) << std::string(4096, 'x');
  EXPECT_EQ(OpenError(garbage), garbage + " is not a beast database");

  const std::string short_text = PathOf("notes.txt");
  std::ofstream(short_text) << "not a database\n";
  EXPECT_EQ(OpenError(short_text), short_text + " is not a beast database");

  const std::string other = PathOf("other.db");
  RawExec(other, "CREATE TABLE things (x INTEGER)");
  EXPECT_EQ(OpenError(other), other + " is not a beast database");
  EXPECT_EQ(RawQuery(other, "SELECT count(*) FROM sqlite_master"), "1");  // left untouched

  const std::string other_app = PathOf("other_app.db");
  RawExec(other_app, "PRAGMA application_id = 7");
  EXPECT_EQ(OpenError(other_app), other_app + " is not a beast database");
}

TEST_F(StoreTest, RefusesNewerSchemaVersion) {
  const std::string path = PathOf("future.db");
  Store::Open(path);
  RawExec(path, "PRAGMA user_version = 10");
  EXPECT_EQ(OpenError(path),
            path + ": database schema version 10 is newer than this beast (9): upgrade beast");
  EXPECT_EQ(RawQuery(path, "PRAGMA user_version"), "10");  // left untouched
}

TEST_F(StoreTest, UpsertsAreIdempotent) {
  Store store = Store::Open(PathOf("beast.db"));
  int64_t gpu = store.UpsertDevice(Device("GPU"));
  DeviceRecord same_identity = Device("GPU");
  same_identity.vendor = "Other vendor";
  EXPECT_EQ(store.UpsertDevice(same_identity), gpu);
  EXPECT_NE(store.UpsertDevice(Device("GPU", "2.0")), gpu);  // a driver update is a new device

  int64_t problem = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  EXPECT_EQ(store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0), problem);
  EXPECT_NE(store.UpsertProblem("gemm:M=128,N=64,K=64", "gemm", 1048576.0), problem);

  int64_t tiled = store.UpsertTemplate("gemm/tiled", "aaaa", "kernel_templates/gemm/tiled.cl.j2");
  EXPECT_EQ(store.UpsertTemplate("gemm/tiled", "aaaa", "elsewhere"), tiled);
  int64_t tiled_v2 = store.UpsertTemplate("gemm/tiled", "bbbb", "");
  EXPECT_NE(tiled_v2, tiled);

  int64_t config = store.UpsertConfig(tiled, "MWG=32", "h32", R"({"MWG": 32})");
  EXPECT_EQ(store.UpsertConfig(tiled, "MWG=32", "h32", R"({"MWG": 32})"), config);
  EXPECT_NE(store.UpsertConfig(tiled_v2, "MWG=32", "h32", R"({"MWG": 32})"), config);
}

// A device recorded again keeps its limits and its measurements, and gains
// the measured values it lacked (a tensor-core peak a later run measured
// first); a run that measured nothing changes nothing.
TEST_F(StoreTest, ADeviceRecordedAgainGainsOnlyTheMeasurementsItLacked) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  DeviceRecord first = Device("GPU");
  first.limits_json =
      R"({"max_work_group_size": 1024, "peak_gflops_measured": 100.5, "peak_method": "FMA", )"
      R"("peak_gflops_f64_measured": null})";
  const int64_t gpu = store.UpsertDevice(first);
  DeviceRecord later = Device("GPU");
  later.limits_json =
      R"({"max_work_group_size": 2048, "peak_gflops_measured": 99, "peak_method": "FMA again", )"
      R"("peak_gflops_f64_measured": 50, "peak_gflops_tensor_f16_measured": 900.25, )"
      R"("peak_tensor_f16_method": "mma", "peak_gflops_tensor_bf16_measured": 901, )"
      R"("peak_tensor_bf16_method": "mma", "bandwidth_gbs_measured": null})";
  EXPECT_EQ(store.UpsertDevice(later), gpu);
  const std::string sql = "SELECT limits_json FROM devices WHERE id = " + std::to_string(gpu);
  // What the row held, in its order and values (its null replaced), then
  // what it lacked in the new record's order (SQLite's json_patch writes
  // the object without blanks, as beast's dump() does).
  const std::string expected =
      R"({"max_work_group_size":1024,"peak_gflops_measured":100.5,"peak_method":"FMA",)"
      R"("peak_gflops_f64_measured":50,"peak_gflops_tensor_f16_measured":900.25,)"
      R"("peak_tensor_f16_method":"mma","peak_gflops_tensor_bf16_measured":901,)"
      R"("peak_tensor_bf16_method":"mma"})";
  EXPECT_EQ(RawQuery(path, sql), expected);
  EXPECT_EQ(store.UpsertDevice(Device("GPU")), gpu);  // nothing measured: nothing added
  EXPECT_EQ(store.UpsertDevice(later), gpu);          // all of it held: nothing added
  EXPECT_EQ(RawQuery(path, sql), expected);
}

TEST_F(StoreTest, RunsStartRunningAndFinish) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  int64_t run = store.BeginRun("beast tune --device opencl:0", "0.1.0");
  EXPECT_EQ(RawQuery(path, "SELECT status || ' ' || (finished_at IS NULL) FROM runs"), "running 1");
  store.FinishRun(run, results_db::RunEnd::kInterrupted);
  EXPECT_EQ(RawQuery(path,
                     "SELECT status || ' ' || (finished_at IS NULL) || ' ' || command "
                     "FROM runs"),
            "interrupted 0 beast tune --device opencl:0");
  EXPECT_THROW(store.FinishRun(run + 1, results_db::RunEnd::kFinished), beast::Error);
}

TEST_F(StoreTest, FirstMeasurementIsKept) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  int64_t run = store.BeginRun("tune", "0.1.0");
  int64_t device = store.UpsertDevice(Device("GPU"));
  int64_t problem = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  int64_t tiled = store.UpsertTemplate("gemm/tiled", "aaaa", "");
  int64_t config = store.UpsertConfig(tiled, "MWG=32", "h32", R"({"MWG": 32})");

  EXPECT_FALSE(store.HasMeasurement(device, problem, config));
  MeasurementRecord first = Ok(run, device, problem, config, 2.0);
  first.samples_ms = {2.0, 1.5, 2.25};
  EXPECT_TRUE(store.RecordMeasurement(first));
  EXPECT_TRUE(store.HasMeasurement(device, problem, config));
  EXPECT_FALSE(store.RecordMeasurement(Ok(run, device, problem, config, 1.0)));
  EXPECT_FALSE(
      store.RecordMeasurement(Failed(run, device, problem, config, beast::Status::kCrashed)));

  std::vector<ResultRow> rows = store.Query(QueryFilter());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, beast::Status::kOk);
  EXPECT_EQ(rows[0].median_ms, 2.0);
  EXPECT_FALSE(rows[0].is_default);
  EXPECT_EQ(RawQuery(path, "SELECT samples_json FROM measurements"), "[2.0,1.5,2.25]");

  // Measuring the default config after the search already did marks the kept row.
  EXPECT_FALSE(store.RecordMeasurement(Ok(run, device, problem, config, 9.0, true)));
  rows = store.Query(QueryFilter());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].is_default);
  EXPECT_EQ(rows[0].median_ms, 2.0);
  EXPECT_EQ(rows[0].speedup_vs_default, 1.0);
}

TEST_F(StoreTest, CompiledResourcesRoundTripAndUnreportedOnesAreNull) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  int64_t run = store.BeginRun("tune", "0.1.0");
  int64_t device = store.UpsertDevice(Device("GPU"));
  int64_t problem = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  int64_t tiled = store.UpsertTemplate("gemm/tiled", "aaaa", "");
  MeasurementRecord compiled =
      Failed(run, device, problem, store.UpsertConfig(tiled, "MWG=16", "h16", "{}"),
             beast::Status::kCompiled);
  compiled.registers = 40;
  compiled.spill_bytes = 0;
  compiled.stack_bytes = 16;
  compiled.shared_bytes = 8192;
  EXPECT_TRUE(store.RecordMeasurement(compiled));
  // OpenCL reports local and private memory only.
  MeasurementRecord pruned =
      Failed(run, device, problem, store.UpsertConfig(tiled, "MWG=32", "h32", "{}"),
             beast::Status::kPrunedAfterCompile);
  pruned.stack_bytes = 0;
  pruned.shared_bytes = 2048;
  EXPECT_TRUE(store.RecordMeasurement(pruned));
  std::vector<ResultRow> rows = store.Query(QueryFilter());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].config_key, "MWG=16");
  EXPECT_EQ(rows[0].status, beast::Status::kCompiled);
  EXPECT_EQ(rows[0].registers, 40);
  EXPECT_EQ(rows[0].spill_bytes, 0);
  EXPECT_EQ(rows[0].stack_bytes, 16);
  EXPECT_EQ(rows[0].shared_bytes, 8192);
  EXPECT_EQ(rows[1].status, beast::Status::kPrunedAfterCompile);
  EXPECT_FALSE(rows[1].registers.has_value());
  EXPECT_FALSE(rows[1].spill_bytes.has_value());
  EXPECT_EQ(rows[1].stack_bytes, 0);
  EXPECT_EQ(rows[1].shared_bytes, 2048);
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM measurements WHERE registers IS NULL"), "1");
  EXPECT_EQ(RawQuery(path,
                     "SELECT group_concat(registers || '/' || shared_bytes) FROM "
                     "measurement_provenance WHERE status = 'compiled'"),
            "40/8192");
}

TEST_F(StoreTest, RecordMeasurementChecksStatusAndReferences) {
  Store store = Store::Open(PathOf("beast.db"));
  int64_t run = store.BeginRun("tune", "0.1.0");
  int64_t device = store.UpsertDevice(Device("GPU"));
  int64_t problem = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  int64_t config =
      store.UpsertConfig(store.UpsertTemplate("gemm/tiled", "aaaa", ""), "MWG=32", "h32", "{}");
  try {
    store.RecordMeasurement(Failed(run, device, problem, config, beast::Status::kUnsupported));
    FAIL() << "recorded a baseline's status as a measurement's";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kBadArgument);
  }
  try {
    store.RecordMeasurement(Ok(run + 1, device, problem, config, 1.0));  // no such run
    FAIL() << "recorded a measurement of a run that does not exist";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kDatabase);
    EXPECT_NE(std::string(error.what()).find("FOREIGN KEY constraint failed"), std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(store.HasMeasurement(device, problem, config));
}

TEST_F(StoreTest, MeasuredConfigKeysOfOneTemplateVersion) {
  Store store = Store::Open(PathOf("beast.db"));
  int64_t run = store.BeginRun("tune", "0.1.0");
  int64_t gpu = store.UpsertDevice(Device("GPU"));
  int64_t cpu = store.UpsertDevice(Device("CPU"));
  int64_t problem = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  int64_t v1 = store.UpsertTemplate("gemm/tiled", "aaaa", "");
  int64_t v2 = store.UpsertTemplate("gemm/tiled", "bbbb", "");
  store.RecordMeasurement(Ok(run, gpu, problem, store.UpsertConfig(v1, "MWG=16", "a", "{}"), 1));
  store.RecordMeasurement(Failed(run, gpu, problem, store.UpsertConfig(v1, "MWG=32", "b", "{}"),
                                 beast::Status::kTimeout));
  store.RecordMeasurement(Ok(run, gpu, problem, store.UpsertConfig(v2, "MWG=64", "c", "{}"), 1));
  store.RecordMeasurement(Ok(run, cpu, problem, store.UpsertConfig(v1, "MWG=128", "d", "{}"), 1));
  store.UpsertConfig(v1, "MWG=256", "e", "{}");  // enumerated, not yet measured

  EXPECT_EQ(store.MeasuredConfigKeys(gpu, problem, v1),
            (std::set<std::string>{"MWG=16", "MWG=32"}));
  EXPECT_EQ(store.MeasuredConfigKeys(gpu, problem, v2), (std::set<std::string>{"MWG=64"}));
  EXPECT_EQ(store.MeasuredConfigKeys(cpu, problem, v1), (std::set<std::string>{"MWG=128"}));
  EXPECT_TRUE(store.MeasuredConfigKeys(cpu, problem, v2).empty());
}

// A search keeps the largest lead any of its runs had: a resume with a
// smaller one (a cluster's, on fewer ranks) keeps it, so it proposes the same
// trajectory; a larger one raises it.
TEST_F(StoreTest, ASearchKeepsTheLargestLeadItRanWith) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  const int64_t gpu = store.UpsertDevice(Device("GPU"));
  const int64_t problem = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  const int64_t v1 = store.UpsertTemplate("gemm/tiled", "aaaa", "");
  const int64_t v2 = store.UpsertTemplate("gemm/tiled", "bbbb", "");
  EXPECT_EQ(store.SearchLead(gpu, problem, v1, 12), 12);
  EXPECT_EQ(store.SearchLead(gpu, problem, v1, 8), 12);
  const int64_t cutoff = store.TransferCutoff(gpu, problem, v1);  // the same row
  EXPECT_EQ(store.SearchLead(gpu, problem, v1, 8), 12);
  EXPECT_EQ(store.TransferCutoff(gpu, problem, v1), cutoff);
  EXPECT_EQ(store.SearchLead(gpu, problem, v1, 16), 16);  // more slots to feed
  EXPECT_EQ(store.SearchLead(gpu, problem, v1, 8), 16);
  EXPECT_EQ(store.SearchLead(gpu, problem, v2, 8), 8);  // another search
  // One begun before version 8 (no lead, a transfer cutoff) takes the next.
  RawExec(path, "UPDATE searches SET lead = NULL WHERE template_id = " + std::to_string(v2));
  EXPECT_EQ(store.SearchLead(gpu, problem, v2, 5), 5);
  EXPECT_EQ(store.SearchLead(gpu, problem, v2, 3), 5);
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM searches"), "2");
}

TEST_F(StoreTest, SecondConnectionSeesRecordedMeasurements) {
  const std::string path = PathOf("beast.db");
  Store writer = Store::Open(path);
  Store reader = Store::OpenExisting(path);
  int64_t run = writer.BeginRun("tune", "0.1.0");
  int64_t device = writer.UpsertDevice(Device("GPU"));
  int64_t problem = writer.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  int64_t config =
      writer.UpsertConfig(writer.UpsertTemplate("gemm/tiled", "aaaa", ""), "MWG=32", "h32", "{}");
  writer.RecordMeasurement(Ok(run, device, problem, config, 3.0));
  EXPECT_TRUE(reader.HasMeasurement(device, problem, config));
  EXPECT_EQ(reader.UpsertDevice(Device("GPU")), device);
}

}  // namespace
}  // namespace results_db
