// Confirmations in the result store: recorded and read back exactly, the
// winner of --best, --top and the exporter is the fastest of the confirmation
// that stands, a faster config measured since makes it stale, failed
// candidates never win, and bad records write nothing.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Ok;

const char kGemm[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";

// One device, one problem, gemm/tiled: MWG=16 (default) 8 ms, MWG=32 2 ms,
// MWG=64 2.1 ms, MWG=128 2.2 ms, MWG=256 5 ms.
class StoreConfirmationTest : public testing_util::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    store_.emplace(Store::Open(PathOf("beast.db")));
    Store& s = *store_;
    run_ = s.BeginRun("beast tune", "0.1.0");
    gpu_ = s.UpsertDevice(Device("GPU"));
    gemm_ = s.UpsertProblem(kGemm, "gemm", 524288.0);
    tiled_ = s.UpsertTemplate("gemm/tiled", "aaaa", "kernel_templates/gemm/tiled.cl.j2");
    for (int mwg : {16, 32, 64, 128, 256, 512}) {
      std::string key = "MWG=" + std::to_string(mwg);
      config_[mwg] = s.UpsertConfig(tiled_, key, "h" + key, "{}");
    }
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, config_[16], 8.0, /*is_default=*/true));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, config_[32], 2.0));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, config_[64], 2.1));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, config_[128], 2.2));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, config_[256], 5.0));
  }
  void TearDown() override {
    store_.reset();
    StoreTest::TearDown();
  }

  ConfirmationResult Result(int mwg, double median, beast::Status status = beast::Status::kOk) {
    ConfirmationResult r;
    r.config_id = config_[mwg];
    r.status = status;
    if (status == beast::Status::kOk) {
      r.samples_ms = {median, median + 0.5, median};
      r.median_ms = median;
      r.spread = 0.25;
    } else {
      r.error_text = "kernel failed";
    }
    return r;
  }
  Confirmation Of(std::vector<ConfirmationResult> results) {
    Confirmation c;
    c.run_id = run_;
    c.device_id = gpu_;
    c.problem_id = gemm_;
    c.template_id = tiled_;
    c.results = std::move(results);
    return c;
  }
  // "config confirmed_ms" of the top k, in rank order.
  std::vector<std::string> Top(int64_t k) {
    QueryFilter filter;
    filter.top_k = k;
    std::vector<std::string> lines;
    for (const ResultRow& r : store_->Query(filter)) {
      lines.push_back(r.config_key + " " +
                      (r.confirmed_ms ? std::to_string(*r.confirmed_ms) : std::string("-")));
    }
    return lines;
  }
  std::string Best() {
    QueryFilter filter;
    filter.best_only = true;
    std::vector<ResultRow> rows = store_->Query(filter);
    EXPECT_EQ(rows.size(), 1u);
    std::vector<WinnerRow> winners = store_->Winners();
    EXPECT_EQ(winners.size(), 1u);
    if (rows.empty() || winners.empty()) return "";
    EXPECT_EQ(winners[0].config_key, rows[0].config_key);  // the exporter agrees
    return rows[0].config_key;
  }

  std::optional<Store> store_;
  int64_t run_ = 0, gpu_ = 0, gemm_ = 0, tiled_ = 0;
  std::map<int, int64_t> config_;
};

TEST_F(StoreConfirmationTest, WithoutAConfirmationTheLowestMedianWins) {
  EXPECT_EQ(Best(), "MWG=32");
  EXPECT_EQ(Top(3), (std::vector<std::string>{"MWG=32 -", "MWG=64 -", "MWG=128 -"}));
  EXPECT_TRUE(store_->Confirmations(gpu_, gemm_, tiled_).empty());
}

TEST_F(StoreConfirmationTest, IsReadBackExactly) {
  int64_t id = store_->RecordConfirmation(Of({Result(64, 1.9), Result(32, 2.05)}));
  std::vector<Confirmation> all = store_->Confirmations(gpu_, gemm_, tiled_);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, id);
  EXPECT_EQ(all[0].run_id, run_);
  ASSERT_EQ(all[0].results.size(), 2u);
  EXPECT_EQ(all[0].results[0].config_key, "MWG=32");  // by config id
  EXPECT_EQ(all[0].results[0].samples_json, "[2.05,2.55,2.05]");
  EXPECT_EQ(all[0].results[0].median_ms, 2.05);
  EXPECT_EQ(all[0].results[0].spread, 0.25);
  EXPECT_EQ(all[0].results[1].config_key, "MWG=64");
  EXPECT_EQ(all[0].results[1].status, beast::Status::kOk);
  EXPECT_EQ(all[0].results[1].median_ms, 1.9);
  EXPECT_TRUE(store_->Confirmations(gpu_, gemm_, tiled_ + 1).empty());
}

TEST_F(StoreConfirmationTest, TheFastestOfTheConfirmationWins) {
  store_->RecordConfirmation(Of({Result(32, 2.3), Result(64, 1.95), Result(128, 2.0)}));
  EXPECT_EQ(Best(), "MWG=64");
  EXPECT_EQ(Top(5), (std::vector<std::string>{"MWG=64 1.950000", "MWG=128 2.000000",
                                              "MWG=32 2.300000", "MWG=256 -", "MWG=16 -"}));
  // A plain listing keeps its order by median, with each row's confirmed time.
  QueryFilter all;
  std::vector<ResultRow> rows = store_->Query(all);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].config_key, "MWG=32");
  EXPECT_EQ(rows[0].confirmed_ms, 2.3);
  EXPECT_FALSE(rows[4].confirmed_ms.has_value());  // MWG=16 took no part
}

TEST_F(StoreConfirmationTest, TheLatestConfirmationStands) {
  store_->RecordConfirmation(Of({Result(32, 2.3), Result(64, 1.95)}));
  store_->RecordConfirmation(Of({Result(32, 1.8), Result(64, 1.95), Result(128, 1.9)}));
  EXPECT_EQ(Best(), "MWG=32");
  EXPECT_EQ(store_->Confirmations(gpu_, gemm_, tiled_).size(), 2u);
}

TEST_F(StoreConfirmationTest, SpeedupOverADefaultConfirmedBesideTheWinnerComparesConfirmedTimes) {
  // The default (8 ms by its first median) is re-measured with the others at
  // 2.5 ms; MWG=64 (2.1 ms first) wins at 2.0 ms. Against the default's first
  // median it would be 8 / 2.1; against its first median the confirmed winner
  // could even look slower. Like against like: 2.5 / 2.0.
  store_->RecordConfirmation(Of({Result(16, 2.5), Result(32, 2.3), Result(64, 2.0)}));
  QueryFilter filter;
  filter.top_k = 5;
  std::vector<ResultRow> rows = store_->Query(filter);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].config_key, "MWG=64");
  EXPECT_DOUBLE_EQ(*rows[0].speedup_vs_default, 2.5 / 2.0);
  EXPECT_EQ(rows[1].config_key, "MWG=32");
  EXPECT_DOUBLE_EQ(*rows[1].speedup_vs_default, 2.5 / 2.3);
  EXPECT_EQ(rows[2].config_key, "MWG=16");
  EXPECT_DOUBLE_EQ(*rows[2].speedup_vs_default, 1.0);
  // MWG=128 and MWG=256 took no part: their first medians against the default's.
  EXPECT_EQ(rows[3].config_key, "MWG=128");
  EXPECT_DOUBLE_EQ(*rows[3].speedup_vs_default, 8.0 / 2.2);
  // Each row says which medians its speedup compares.
  EXPECT_TRUE(rows[0].speedup_from_confirmed);
  EXPECT_TRUE(rows[2].speedup_from_confirmed);
  EXPECT_FALSE(rows[3].speedup_from_confirmed);
  std::vector<WinnerRow> winners = store_->Winners();
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_DOUBLE_EQ(*winners[0].speedup_vs_default, 2.5 / 2.0);
}

TEST_F(StoreConfirmationTest, SpeedupOverADefaultLeftOutOfTheConfirmationComparesFirstMedians) {
  store_->RecordConfirmation(Of({Result(32, 2.3), Result(64, 1.95)}));
  std::vector<WinnerRow> winners = store_->Winners();
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_EQ(winners[0].config_key, "MWG=64");
  EXPECT_DOUBLE_EQ(*winners[0].speedup_vs_default, 8.0 / 2.1);
}

TEST_F(StoreConfirmationTest, AFailedCandidateNeverWins) {
  store_->RecordConfirmation(Of({Result(32, 0, beast::Status::kRuntimeError), Result(64, 2.4)}));
  EXPECT_EQ(Best(), "MWG=64");
  EXPECT_EQ(Top(2), (std::vector<std::string>{"MWG=64 2.400000", "MWG=32 -"}));
}

TEST_F(StoreConfirmationTest, AFasterConfigMeasuredSinceMakesItStale) {
  store_->RecordConfirmation(Of({Result(32, 2.3), Result(64, 1.95)}));
  // Slower than the confirmed ones by median: the confirmation still stands.
  store_->RecordMeasurement(Ok(run_, gpu_, gemm_, config_[512], 2.05));
  EXPECT_EQ(Best(), "MWG=64");
  // Faster than any of them: it was never compared with them, so medians
  // decide again.
  RawExec(PathOf("beast.db"), "UPDATE measurements SET median_ms = 1.5 WHERE config_id = " +
                                  std::to_string(config_[512]));
  EXPECT_EQ(Best(), "MWG=512");
  EXPECT_EQ(Top(2), (std::vector<std::string>{"MWG=512 -", "MWG=32 -"}));
}

TEST_F(StoreConfirmationTest, AnotherTemplateVersionOrDeviceIsNotConfirmedByIt) {
  store_->RecordConfirmation(Of({Result(32, 2.3), Result(64, 1.95)}));
  int64_t cpu = store_->UpsertDevice(Device("CPU"));
  store_->RecordMeasurement(Ok(run_, cpu, gemm_, config_[32], 3.0));
  store_->RecordMeasurement(Ok(run_, cpu, gemm_, config_[64], 4.0));
  QueryFilter filter;
  filter.best_only = true;
  filter.device_id = cpu;
  std::vector<ResultRow> rows = store_->Query(filter);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].config_key, "MWG=32");
  EXPECT_FALSE(rows[0].confirmed_ms.has_value());
}

TEST_F(StoreConfirmationTest, BadRecordsAreRefusedAndWriteNothing) {
  EXPECT_THROW(store_->RecordConfirmation(Of({})), beast::Error);
  EXPECT_THROW(store_->RecordConfirmation(Of({Result(32, 2.0, beast::Status::kWrongResult)})),
               beast::Error);
  EXPECT_THROW(store_->RecordConfirmation(Of({Result(32, 2.0), Result(32, 2.1)})), beast::Error);
  EXPECT_EQ(RawQuery(PathOf("beast.db"), "SELECT count(*) FROM confirmations"), "0");
  EXPECT_EQ(RawQuery(PathOf("beast.db"), "SELECT count(*) FROM confirmation_results"), "0");
  // Inside a batch that is rolled back, nothing is written either.
  {
    Store::Batch batch(*store_);
    store_->RecordConfirmation(Of({Result(32, 2.0)}));
  }
  EXPECT_EQ(RawQuery(PathOf("beast.db"), "SELECT count(*) FROM confirmations"), "0");
}

}  // namespace
}  // namespace results_db
