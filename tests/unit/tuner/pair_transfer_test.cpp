// The transfer set of a pair (beast/tuner/pair_transfer.hpp) on a real
// database: of another problem's 1,500 trials, recorded in enumeration
// order, the model learns from a fixed uniform sample of 1,000, not the
// first 1,000 (all alike), and the pair's own trials are not among them;
// a trial recorded with the parameters in another order (before an edit
// reordered them) is the same point.
#include "beast/tuner/pair_transfer.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "beast/search/listed_search_space.hpp"
#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Ok;
using testing_util::StoreTest;

TEST_F(StoreTest, TransferTakesAUniformSampleOfALargeTuning) {
  Store store = Store::Open(PathOf("beast.db"));
  const int64_t run = store.BeginRun("tune", "0.1.0");
  const int64_t device = store.UpsertDevice(Device("GPU"));
  const int64_t tuned = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  const int64_t fresh = store.UpsertProblem("gemm:M=128,N=128,K=128", "gemm", 4194304.0);
  const int64_t version = store.UpsertTemplate("test/x", "aaaa", "");
  std::vector<beast::Config> configs;
  {
    Store::Batch batch(store);
    for (int x = 0; x < 1500; ++x) {
      const std::string key = "X=" + std::to_string(x);
      configs.push_back(beast::Config::ParseKey(key));
      const int64_t config = store.UpsertConfig(version, key, key, "{}");
      ASSERT_TRUE(store.RecordMeasurement(Ok(run, device, tuned, config, 1.0 + x)));
    }
    // One trial of the pair itself, which is not transferred.
    ASSERT_TRUE(store.RecordMeasurement(
        Ok(run, device, fresh, store.UpsertConfig(version, "X=0", "X=0", "{}"), 5.0)));
    batch.Commit();
  }
  const beast::ListedSearchSpace space({"X"}, configs);
  const beast::TransferSet set =
      beast::TransferFor(store, space, "test/x", device, fresh, /*before_id=*/1 << 30);
  ASSERT_EQ(set.groups.size(), 1u);
  const beast::History& group = set.groups[0];
  ASSERT_EQ(group.size(), 1000u);
  std::set<int64_t> seen;
  int last_third = 0;
  for (const beast::Trial& t : group) {
    const int64_t x = t.config.Find("X")->i;
    EXPECT_EQ(*t.ms, 1.0 + x);  // the other problem's times
    seen.insert(x);
    last_third += x >= 1000;
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(last_third, 337);  // the first 1,000 had none
  // The same database gives the same sample.
  const beast::TransferSet again =
      beast::TransferFor(store, space, "test/x", device, fresh, /*before_id=*/1 << 30);
  for (size_t i = 0; i < group.size(); ++i)
    EXPECT_EQ(again.groups[0][i].config.Key(), group[i].config.Key());
}

TEST_F(StoreTest, TransferReadsATrialRecordedInAnotherParameterOrder) {
  Store store = Store::Open(PathOf("beast.db"));
  const int64_t run = store.BeginRun("tune", "0.1.0");
  const int64_t device = store.UpsertDevice(Device("GPU"));
  const int64_t other = store.UpsertProblem("gemm:M=64,N=64,K=64", "gemm", 524288.0);
  const int64_t fresh = store.UpsertProblem("gemm:M=128,N=128,K=128", "gemm", 4194304.0);
  const int64_t version = store.UpsertTemplate("test/x", "aaaa", "");
  for (const char* key : {"Y=2,X=1", "Y=9,X=9", "Z=1,X=1"}) {
    const int64_t config = store.UpsertConfig(version, key, key, "{}");
    ASSERT_TRUE(store.RecordMeasurement(Ok(run, device, other, config, 3.0)));
  }
  const beast::ListedSearchSpace space(
      {"X", "Y"}, {beast::Config::ParseKey("X=1,Y=2"), beast::Config::ParseKey("X=1,Y=3")});
  const beast::TransferSet set =
      beast::TransferFor(store, space, "test/x", device, fresh, /*before_id=*/1 << 30);
  // Y=9,X=9 is no point of the space, Z=1,X=1 names another parameter.
  ASSERT_EQ(set.groups.size(), 1u);
  ASSERT_EQ(set.groups[0].size(), 1u);
  EXPECT_EQ(set.groups[0][0].config.Key(), "X=1,Y=2");
  EXPECT_EQ(*set.groups[0][0].ms, 3.0);
}

}  // namespace
}  // namespace results_db
