// Tests of measuring a recorded failure again (Store::SupersedeMeasurement)
// and of attempts, on real database files: the row keeps its id and
// identity with the new outcome, the old one is kept in
// superseded_measurements, and a failed write changes nothing.
#include <gtest/gtest.h>

#include <string>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Failed;
using testing_util::Ok;
using testing_util::StoreTest;

class StoreSupersede : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    path_ = PathOf("beast.db");
    Store store = Store::Open(path_);
    run_ = store.BeginRun("beast tune", "test");
    device_ = store.UpsertDevice(Device("CPU"));
    problem_ = store.UpsertProblem("gemm:M=64,N=64,K=64,dtype=f32", "gemm", 524288);
    const int64_t t = store.UpsertTemplate("gemm/tiled", "abc", "");
    config_ = store.UpsertConfig(t, "MWG=16", "h16", R"({"MWG": 16})");
    MeasurementRecord crashed = Failed(run_, device_, problem_, config_, beast::Status::kCrashed);
    crashed.attempts = 2;
    crashed.strategy = "model";
    store.RecordMeasurement(crashed);
    store.FinishRun(run_, RunEnd::kFinished);
  }
  std::string path_;
  int64_t run_ = 0, device_ = 0, problem_ = 0, config_ = 0;
};

TEST_F(StoreSupersede, TheNewOutcomeTakesTheRowAndTheOldOneIsKept) {
  EXPECT_EQ(RawQuery(path_, "SELECT attempts FROM measurements"), "2");
  const std::string id = RawQuery(path_, "SELECT id FROM measurements");
  {
    Store store = Store::Open(path_);
    const int64_t retry_run = store.BeginRun("beast tune --retry-failed", "test");
    MeasurementRecord ok = Ok(retry_run, device_, problem_, config_, 1.5);
    store.SupersedeMeasurement(std::stoll(id), ok);
  }
  EXPECT_EQ(RawQuery(path_,
                     "SELECT group_concat(id || ' ' || run_id || ' ' || status || ' ' || "
                     "median_ms || ' ' || attempts || ' ' || strategy, ';') FROM measurements"),
            id + " 2 ok 1.5 1 model");
  EXPECT_EQ(RawQuery(path_,
                     "SELECT group_concat(measurement_id || ' ' || superseded_by_run || ' ' || "
                     "run_id || ' ' || status || ' ' || attempts || ' ' || error_text, ';') "
                     "FROM superseded_measurements"),
            id + " 2 1 crashed 2 error: too many resources requested");
}

// A wrong result was measured: its times, its error against the reference
// and its kernel's resources are history too, and stay with it.
TEST_F(StoreSupersede, EverythingAWrongResultMeasuredIsKept) {
  int64_t other_config = 0, wrong_id = 0;
  {
    Store store = Store::Open(path_);
    const int64_t run = store.BeginRun("beast tune", "test");
    other_config = store.UpsertConfig(store.UpsertTemplate("gemm/tiled", "abc", ""), "MWG=32",
                                      "h32", R"({"MWG": 32})");
    MeasurementRecord wrong = Ok(run, device_, problem_, other_config, 2.0);
    wrong.status = beast::Status::kWrongResult;
    wrong.spread = 0.25;
    wrong.gflops = 7.5;
    wrong.max_error = 0.125;
    wrong.registers = 40;
    wrong.spill_bytes = 8;
    wrong.stack_bytes = 16;
    wrong.shared_bytes = 4096;
    store.RecordMeasurement(wrong);
    wrong_id = std::stoll(RawQuery(path_, "SELECT max(id) FROM measurements"));
    store.SupersedeMeasurement(wrong_id, Ok(run, device_, problem_, other_config, 1.0));
  }
  EXPECT_EQ(RawQuery(path_,
                     "SELECT status || ' ' || median_ms || ' ' || spread || ' ' || gflops || ' ' "
                     "|| max_error || ' ' || registers || ' ' || spill_bytes || ' ' || "
                     "stack_bytes || ' ' || shared_bytes FROM superseded_measurements "
                     "WHERE measurement_id = " +
                         std::to_string(wrong_id)),
            "wrong_result 2.0 0.25 7.5 0.125 40 8 16 4096");
  // The row holds the new outcome, without the old one's resources.
  EXPECT_EQ(RawQuery(path_,
                     "SELECT status || ' ' || max_error || ' ' || coalesce(registers, 'none') "
                     "FROM measurements WHERE id = " +
                         std::to_string(wrong_id)),
            "ok 0.0 none");
}

TEST_F(StoreSupersede, AnUnknownMeasurementIsRefusedAndNothingIsKept) {
  Store store = Store::Open(path_);
  try {
    store.SupersedeMeasurement(999, Ok(run_, device_, problem_, config_, 1.0));
    FAIL() << "superseded a measurement that is not there";
  } catch (const beast::Error& error) {
    EXPECT_EQ(error.code(), beast::ErrorCode::kDatabase);
    EXPECT_EQ(std::string(error.what()), path_ + ": no measurement with id 999");
  }
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM superseded_measurements"), "0");
  EXPECT_EQ(RawQuery(path_, "SELECT status FROM measurements"), "crashed");
}

}  // namespace
}  // namespace results_db
