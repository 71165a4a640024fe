// Tests of Store::TimeSpent on a real database whose record times are set
// by hand: each measurement, baseline and confirmation is charged the time
// since the previous record of its run on its device (the first since the
// run started), summed per (device, problem) over runs, in exact seconds.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Ok;

const char kGemm[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";
const char kConv[] = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32";
const char kUntuned[] = "gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f32";

class StoreTimeSpentTest : public testing_util::StoreTest {};

std::vector<std::string> Describe(const std::vector<TimeSpentRow>& rows) {
  std::vector<std::string> lines;
  for (const TimeSpentRow& r : rows) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", r.seconds);
    lines.push_back(r.device_name + " " + r.problem_key + " " + seconds);
  }
  return lines;
}

TEST_F(StoreTimeSpentTest, EachRecordIsChargedTheGapSinceThePreviousOneOnItsDevice) {
  const std::string path = PathOf("beast.db");
  {
    Store s = Store::Open(path);
    const int64_t run1 = s.BeginRun("beast tune", "0.1.0");
    const int64_t run2 = s.BeginRun("beast tune", "0.1.0");
    const int64_t gpu = s.UpsertDevice(Device("GPU"));
    const int64_t cpu = s.UpsertDevice(Device("CPU"));
    const int64_t gemm = s.UpsertProblem(kGemm, "gemm", 524288.0);
    const int64_t conv = s.UpsertProblem(kConv, "conv2d", 73728.0);
    s.UpsertProblem(kUntuned, "gemm", 1024.0);
    const int64_t tiled = s.UpsertTemplate("gemm/tiled", "aaaa", "gemm/tiled.cl.j2");
    const int64_t c1 = s.UpsertConfig(tiled, "MWG=16", "h16", R"({"MWG": 16})");
    const int64_t c2 = s.UpsertConfig(tiled, "MWG=32", "h32", R"({"MWG": 32})");
    s.RecordMeasurement(Ok(run1, gpu, gemm, c1, 1.0));  // id 1
    s.RecordMeasurement(Ok(run1, gpu, conv, c1, 1.0));  // id 2
    s.RecordMeasurement(Ok(run1, cpu, conv, c1, 1.0));  // id 3
    s.RecordMeasurement(Ok(run2, gpu, gemm, c2, 1.0));  // id 4
    BaselineRecord b;
    b.run_id = run1;
    b.device_id = gpu;
    b.problem_id = gemm;
    b.library = "clblast";
    b.routine = "Sgemm";
    b.status = beast::Status::kOk;
    b.samples_ms = {1.0};
    b.median_ms = 1.0;
    s.RecordBaseline(b);
    Confirmation c;
    c.run_id = run2;
    c.device_id = gpu;
    c.problem_id = gemm;
    c.template_id = tiled;
    ConfirmationResult r;
    r.config_id = c2;
    r.samples_ms = {1.0};
    r.median_ms = 1.0;
    c.results.push_back(r);
    s.RecordConfirmation(c);
  }
  ASSERT_TRUE(beast::testing::SqlExec(
      path,
      "UPDATE runs SET started_at = CASE id WHEN 1 THEN '2026-11-26T10:00:00.000Z' "
      "ELSE '2026-11-26T11:00:00.000Z' END;"
      "UPDATE measurements SET created_at = CASE id "
      "WHEN 1 THEN '2026-11-26T10:00:05.000Z' WHEN 2 THEN '2026-11-26T10:00:07.500Z' "
      "WHEN 3 THEN '2026-11-26T10:00:03.000Z' ELSE '2026-11-26T11:00:01.250Z' END;"
      "UPDATE baselines SET measured_at = '2026-11-26T10:00:08.000Z';"
      "UPDATE confirmations SET created_at = '2026-11-26T11:00:02.000Z';"));
  Store s = Store::OpenExisting(path);
  // GPU gemm: 5 s from run 1's start, 0.5 s for its baseline after the
  // conv; run 2: 1.25 s from its start, 0.75 s for the confirmation.
  // GPU conv: 2.5 s after the gemm. CPU conv: 3 s from run 1's start (its
  // own device's first record). The untuned problem has no row.
  EXPECT_EQ(Describe(s.TimeSpent()), (std::vector<std::string>{
                                         std::string("CPU ") + kConv + " 3.000",
                                         std::string("GPU ") + kConv + " 2.500",
                                         std::string("GPU ") + kGemm + " 7.500",
                                     }));
}

// Run 1 (from 10:00): the gemm fails at 10:00:10, the conv is ok at
// 10:00:20; run 2 (from 11:40) measures the gemm again at 11:40:05
// (--retry-failed replaces its row). The gemm took 10 s + 5 s, the conv
// 10 s: the first attempt is still an event of run 1.
TEST_F(StoreTimeSpentTest, AnOutcomeMeasuredAgainKeepsTheTimeOfItsFirstAttempt) {
  const std::string path = PathOf("beast.db");
  {
    Store s = Store::Open(path);
    const int64_t run1 = s.BeginRun("beast tune", "0.1.0");
    const int64_t run2 = s.BeginRun("beast tune", "0.1.0");
    const int64_t gpu = s.UpsertDevice(Device("GPU"));
    const int64_t gemm = s.UpsertProblem(kGemm, "gemm", 524288.0);
    const int64_t conv = s.UpsertProblem(kConv, "conv2d", 73728.0);
    const int64_t tiled = s.UpsertTemplate("gemm/tiled", "aaaa", "gemm/tiled.cl.j2");
    const int64_t c1 = s.UpsertConfig(tiled, "MWG=16", "h16", R"({"MWG": 16})");
    s.RecordMeasurement(testing_util::Failed(run1, gpu, gemm, c1, beast::Status::kTimeout));
    s.RecordMeasurement(Ok(run1, gpu, conv, c1, 1.0));
    ASSERT_TRUE(beast::testing::SqlExec(
        path,
        "UPDATE runs SET started_at = CASE id WHEN 1 THEN '2026-11-26T10:00:00.000Z' "
        "ELSE '2026-11-26T11:40:00.000Z' END;"
        "UPDATE measurements SET created_at = CASE id "
        "WHEN 1 THEN '2026-11-26T10:00:10.000Z' ELSE '2026-11-26T10:00:20.000Z' END;"));
    s.SupersedeMeasurement(1, Ok(run2, gpu, gemm, c1, 1.0));
  }
  ASSERT_TRUE(beast::testing::SqlExec(
      path, "UPDATE measurements SET created_at = '2026-11-26T11:40:05.000Z' WHERE id = 1;"));
  Store s = Store::OpenExisting(path);
  EXPECT_EQ(Describe(s.TimeSpent()), (std::vector<std::string>{
                                         std::string("GPU ") + kConv + " 10.000",
                                         std::string("GPU ") + kGemm + " 15.000",
                                     }));
}

TEST_F(StoreTimeSpentTest, AnEmptyDatabaseHasNoRows) {
  Store s = Store::Open(PathOf("beast.db"));
  EXPECT_TRUE(s.TimeSpent().empty());
}

}  // namespace
}  // namespace results_db
