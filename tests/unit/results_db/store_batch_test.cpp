// Tests of Store::Batch and of concurrent writers on one real database file:
// a batch commits all its writes or none, one batch at a time per store, and
// several stores (separate connections, as separate processes have) writing at
// once, in batches and one by one, lose nothing and fail nothing.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Ok;
using testing_util::StoreTest;

const char kGemm[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";

TEST_F(StoreTest, BatchCommitsAllItsWrites) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  Store reader = Store::OpenExisting(path);
  int64_t run = store.BeginRun("tune", "0.1.0");
  int64_t device = store.UpsertDevice(Device("GPU"));
  int64_t problem = store.UpsertProblem(kGemm, "gemm", 524288.0);
  int64_t tiled = store.UpsertTemplate("gemm/tiled", "aaaa", "");
  {
    Store::Batch batch(store);
    for (int mwg : {16, 32, 64}) {
      int64_t config = store.UpsertConfig(tiled, "MWG=" + std::to_string(mwg), "h", "{}");
      EXPECT_TRUE(store.RecordMeasurement(Ok(run, device, problem, config, mwg)));
    }
    // Not visible to another connection before the commit.
    EXPECT_EQ(reader.Query(QueryFilter()).size(), 0u);
    batch.Commit();
  }
  EXPECT_EQ(reader.Query(QueryFilter()).size(), 3u);
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM configs"), "3");
}

TEST_F(StoreTest, BatchLeftWithoutCommitWritesNothing) {
  const std::string path = PathOf("beast.db");
  Store store = Store::Open(path);
  int64_t run = store.BeginRun("tune", "0.1.0");
  int64_t device = store.UpsertDevice(Device("GPU"));
  int64_t problem = store.UpsertProblem(kGemm, "gemm", 524288.0);
  int64_t tiled = store.UpsertTemplate("gemm/tiled", "aaaa", "");
  try {
    Store::Batch batch(store);
    int64_t config = store.UpsertConfig(tiled, "MWG=16", "h", "{}");
    store.RecordMeasurement(Ok(run, device, problem, config, 1.0));
    throw std::runtime_error("the worker died");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM configs"), "0");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM measurements"), "0");
  // The store goes on working, and a new batch can start.
  Store::Batch batch(store);
  int64_t config = store.UpsertConfig(tiled, "MWG=16", "h", "{}");
  EXPECT_TRUE(store.RecordMeasurement(Ok(run, device, problem, config, 1.0)));
  batch.Commit();
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM measurements"), "1");
}

TEST_F(StoreTest, OneBatchAtATimePerStore) {
  Store store = Store::Open(PathOf("beast.db"));
  Store::Batch batch(store);
  try {
    Store::Batch nested(store);
    FAIL() << "opened a second batch";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kInternal);
  }
  batch.Commit();
  EXPECT_THROW(batch.Commit(), beast::Error);
}

// Four writers, each with its own connection to a file none of them created
// before: two write in batches of 10, two one measurement at a time; each
// records 200 configs of its own template, all on one device and problem.
TEST_F(StoreTest, ConcurrentWritersLoseNothing) {
  const std::string path = PathOf("beast.db");
  constexpr int kWriters = 4, kConfigs = 200;
  std::string errors[kWriters];
  auto write = [&](int writer) {
    try {
      Store store = Store::Open(path);
      int64_t run = store.BeginRun("tune " + std::to_string(writer), "0.1.0");
      int64_t device = store.UpsertDevice(Device("GPU"));
      int64_t problem = store.UpsertProblem(kGemm, "gemm", 524288.0);
      int64_t tiled = store.UpsertTemplate("t" + std::to_string(writer), "aaaa", "");
      bool batched = writer % 2 == 0;
      for (int i = 0; i < kConfigs; i += 10) {
        std::optional<Store::Batch> batch;
        if (batched) batch.emplace(store);
        for (int j = i; j < i + 10; ++j) {
          int64_t config = store.UpsertConfig(tiled, "X=" + std::to_string(j), "h", "{}");
          if (!store.RecordMeasurement(Ok(run, device, problem, config, 1.0 + j))) {
            throw std::runtime_error("measurement " + std::to_string(j) + " already there");
          }
          // A reader between writes, as the tuner's resume lookups are.
          store.MeasuredConfigKeys(device, problem, tiled);
        }
        if (batch) batch->Commit();
      }
      store.FinishRun(run, results_db::RunEnd::kFinished);
    } catch (const std::exception& error) {
      errors[writer] = error.what();
    }
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) threads.emplace_back(write, w);
  for (auto& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(errors[w], "") << "writer " << w;
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM measurements"), "800");
  EXPECT_EQ(RawQuery(path,
                     "SELECT group_concat(n, ',') FROM (SELECT count(*) AS n FROM "
                     "measurements GROUP BY run_id ORDER BY run_id)"),
            "200,200,200,200");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM devices"), "1");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM runs WHERE status = 'finished'"), "4");
  EXPECT_EQ(RawQuery(path, "PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace results_db
