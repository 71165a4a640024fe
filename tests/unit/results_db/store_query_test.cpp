// Tests of the result store's queries on a real database: all rows in order
// with exact speedups over the default config, the best per (device, problem,
// template), filters, newer template versions, and the exporter's winners.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Failed;
using testing_util::Ok;

const char kGemm[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";
const char kConv[] = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32";

// GPU, gemm, gemm/tiled: default MWG=16 8 ms, MWG=32 2 ms, MWG=64 4 ms,
// MWG=128 failed to compile. CPU, gemm, gemm/tiled: default 5 ms, MWG=64 10 ms.
class StoreQueryTest : public testing_util::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    store_.emplace(Store::Open(PathOf("beast.db")));
    Store& s = *store_;
    run_ = s.BeginRun("beast tune", "0.1.0");
    gpu_ = s.UpsertDevice(Device("GPU"));
    cpu_ = s.UpsertDevice(Device("CPU"));
    gemm_ = s.UpsertProblem(kGemm, "gemm", 524288.0);
    s.UpsertProblem(kConv, "conv2d", 73728.0);
    tiled_ = s.UpsertTemplate("gemm/tiled", "aaaa", "kernel_templates/gemm/tiled.cl.j2");
    c16_ = s.UpsertConfig(tiled_, "MWG=16", "h16", R"({"MWG": 16})");
    c32_ = s.UpsertConfig(tiled_, "MWG=32", "h32", R"({"MWG": 32})");
    c64_ = s.UpsertConfig(tiled_, "MWG=64", "h64", R"({"MWG": 64})");
    c128_ = s.UpsertConfig(tiled_, "MWG=128", "h128", R"({"MWG": 128})");
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, c16_, 8.0, /*is_default=*/true));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, c32_, 2.0));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, c64_, 4.0));
    s.RecordMeasurement(Failed(run_, gpu_, gemm_, c128_, beast::Status::kCompileError));
    s.RecordMeasurement(Ok(run_, cpu_, gemm_, c64_, 10.0));
    s.RecordMeasurement(Ok(run_, cpu_, gemm_, c16_, 5.0, /*is_default=*/true));
  }
  void TearDown() override {
    store_.reset();
    StoreTest::TearDown();
  }

  // "device template config median speedup" per row, for exact comparison.
  static std::vector<std::string> Describe(const std::vector<ResultRow>& rows) {
    std::vector<std::string> lines;
    for (const ResultRow& r : rows) {
      lines.push_back(r.device_name + " " + r.template_name + "@" + r.template_hash + " " +
                      r.config_key + " " + beast::StatusName(r.status) + " " +
                      (r.median_ms ? std::to_string(*r.median_ms) : "-") + " " +
                      (r.speedup_vs_default ? std::to_string(*r.speedup_vs_default) : "-"));
    }
    return lines;
  }

  std::optional<Store> store_;
  int64_t run_ = 0, gpu_ = 0, cpu_ = 0, gemm_ = 0, tiled_ = 0;
  int64_t c16_ = 0, c32_ = 0, c64_ = 0, c128_ = 0;
};

TEST_F(StoreQueryTest, AllRowsInOrderWithSpeedupOverDefault) {
  std::vector<ResultRow> rows = store_->Query(QueryFilter());
  EXPECT_EQ(Describe(rows), (std::vector<std::string>{
                                "CPU gemm/tiled@aaaa MWG=16 ok 5.000000 1.000000",
                                "CPU gemm/tiled@aaaa MWG=64 ok 10.000000 0.500000",
                                "GPU gemm/tiled@aaaa MWG=32 ok 2.000000 4.000000",
                                "GPU gemm/tiled@aaaa MWG=64 ok 4.000000 2.000000",
                                "GPU gemm/tiled@aaaa MWG=16 ok 8.000000 1.000000",
                                "GPU gemm/tiled@aaaa MWG=128 compile_error - -",
                            }));
  const ResultRow& best = rows[2];
  EXPECT_EQ(best.run_id, run_);
  EXPECT_EQ(best.device_id, gpu_);
  EXPECT_EQ(best.backend, "opencl");
  EXPECT_EQ(best.problem_id, gemm_);
  EXPECT_EQ(best.problem_key, kGemm);
  EXPECT_EQ(best.template_id, tiled_);
  EXPECT_EQ(best.config_id, c32_);
  EXPECT_EQ(best.params_json, R"({"MWG": 32})");
  EXPECT_FALSE(best.is_default);
  EXPECT_EQ(best.speedup_vs_default, 4.0);
  EXPECT_EQ(best.spread, 0.0);
  EXPECT_EQ(best.gflops, 0.5);
  EXPECT_EQ(best.max_error, 0.0);
  EXPECT_EQ(best.compile_ms, 100.0);
  EXPECT_TRUE(rows[4].is_default);
  EXPECT_EQ(rows[5].error_text, "error: too many resources requested");
  EXPECT_EQ(rows[5].gflops, std::nullopt);
}

TEST_F(StoreQueryTest, BestOnlyKeepsLowestMedianPerDeviceProblemTemplate) {
  QueryFilter filter;
  filter.best_only = true;
  EXPECT_EQ(Describe(store_->Query(filter)),
            (std::vector<std::string>{"CPU gemm/tiled@aaaa MWG=16 ok 5.000000 1.000000",
                                      "GPU gemm/tiled@aaaa MWG=32 ok 2.000000 4.000000"}));
  filter.device_id = cpu_;
  EXPECT_EQ(Describe(store_->Query(filter)),
            (std::vector<std::string>{"CPU gemm/tiled@aaaa MWG=16 ok 5.000000 1.000000"}));
}

TEST_F(StoreQueryTest, BestOnlyTieGoesToFirstRecorded) {
  store_->RecordMeasurement(Ok(run_, cpu_, gemm_, c32_, 5.0));
  QueryFilter filter;
  filter.best_only = true;
  filter.device_id = cpu_;
  EXPECT_EQ(Describe(store_->Query(filter)),
            (std::vector<std::string>{"CPU gemm/tiled@aaaa MWG=16 ok 5.000000 1.000000"}));
}

TEST_F(StoreQueryTest, FiltersNarrowTheRows) {
  QueryFilter by_device;
  by_device.device_id = gpu_;
  EXPECT_EQ(store_->Query(by_device).size(), 4u);

  QueryFilter by_status;
  by_status.status = beast::Status::kCompileError;
  EXPECT_EQ(Describe(store_->Query(by_status)),
            (std::vector<std::string>{"GPU gemm/tiled@aaaa MWG=128 compile_error - -"}));

  QueryFilter by_problem;
  by_problem.problem_key = kConv;
  EXPECT_TRUE(store_->Query(by_problem).empty());
  by_problem.problem_key = kGemm;
  EXPECT_EQ(store_->Query(by_problem).size(), 6u);

  QueryFilter by_op;
  by_op.op = "conv2d";
  EXPECT_TRUE(store_->Query(by_op).empty());
  by_op.op = "gemm";
  EXPECT_EQ(store_->Query(by_op).size(), 6u);

  QueryFilter by_template;
  by_template.template_name = "gemm/other";
  EXPECT_TRUE(store_->Query(by_template).empty());
  by_template.template_name = "gemm/tiled";
  EXPECT_EQ(store_->Query(by_template).size(), 6u);

  QueryFilter limited;
  limited.limit = 2;
  EXPECT_EQ(Describe(store_->Query(limited)),
            (std::vector<std::string>{"CPU gemm/tiled@aaaa MWG=16 ok 5.000000 1.000000",
                                      "CPU gemm/tiled@aaaa MWG=64 ok 10.000000 0.500000"}));

  // A filter value is data, never SQL.
  QueryFilter hostile;
  hostile.template_name = "x' OR '1'='1";
  EXPECT_TRUE(store_->Query(hostile).empty());
}

TEST_F(StoreQueryTest, NewestTemplateVersionReplacesTheBest) {
  Store& s = *store_;
  int64_t tiled_v2 = s.UpsertTemplate("gemm/tiled", "bbbb", "kernel_templates/gemm/tiled.cl.j2");
  s.RecordMeasurement(Ok(run_, gpu_, gemm_, s.UpsertConfig(tiled_v2, "MWG=32", "h32", "{}"), 3.0));
  int64_t other = s.UpsertTemplate("gemm/other", "cccc", "kernel_templates/gemm/other.cl.j2");
  s.RecordMeasurement(Ok(run_, gpu_, gemm_, s.UpsertConfig(other, "VW=4", "hv4", "{}"), 1.5));

  QueryFilter filter;
  filter.device_id = gpu_;
  filter.best_only = true;
  // v2 has no default measured, so no speedup; v1's 2 ms is history now.
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/other@cccc VW=4 ok 1.500000 -",
                                      "GPU gemm/tiled@bbbb MWG=32 ok 3.000000 -"}));
  filter.best_only = false;
  EXPECT_EQ(Describe(s.Query(filter)), (std::vector<std::string>{
                                           "GPU gemm/other@cccc VW=4 ok 1.500000 -",
                                           "GPU gemm/tiled@aaaa MWG=32 ok 2.000000 4.000000",
                                           "GPU gemm/tiled@aaaa MWG=64 ok 4.000000 2.000000",
                                           "GPU gemm/tiled@aaaa MWG=16 ok 8.000000 1.000000",
                                           "GPU gemm/tiled@aaaa MWG=128 compile_error - -",
                                           "GPU gemm/tiled@bbbb MWG=32 ok 3.000000 -",
                                       }));
}

// An edit put back: version aaaa is tuned again after bbbb, so it is the
// newest again (its id stays the lower one), and its best stands.
TEST_F(StoreQueryTest, ATemplateEditPutBackMakesTheFirstVersionNewestAgain) {
  Store& s = *store_;
  int64_t tiled_v2 = s.UpsertTemplate("gemm/tiled", "bbbb", "kernel_templates/gemm/tiled.cl.j2");
  s.RecordMeasurement(Ok(run_, gpu_, gemm_, s.UpsertConfig(tiled_v2, "MWG=32", "h32", "{}"), 3.0));
  EXPECT_EQ(s.UpsertTemplate("gemm/tiled", "aaaa", "kernel_templates/gemm/tiled.cl.j2"), tiled_);
  s.RecordMeasurement(Ok(run_, gpu_, gemm_, s.UpsertConfig(tiled_, "MWG=8", "h8", "{}"), 1.0));
  QueryFilter filter;
  filter.device_id = gpu_;
  filter.best_only = true;
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/tiled@aaaa MWG=8 ok 1.000000 8.000000"}));
  std::vector<WinnerRow> winners = s.Winners(gpu_);
  ASSERT_EQ(winners.size(), 1u);
  EXPECT_EQ(winners[0].template_hash, "aaaa");
  EXPECT_EQ(winners[0].config_key, "MWG=8");
  // One version asked for by its hash is that version's best, newest or not
  // (the tuner's summary of the version it tuned).
  filter.template_hash = "bbbb";
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/tiled@bbbb MWG=32 ok 3.000000 -"}));
}

// A parameter filter narrows the rows of the newest version; it does not
// bring back the best of a version an edit replaced.
TEST_F(StoreQueryTest, AParameterFilterKeepsToTheNewestVersion) {
  Store& s = *store_;
  int64_t tiled_v2 = s.UpsertTemplate("gemm/tiled", "bbbb", "kernel_templates/gemm/tiled.cl.j2");
  s.RecordMeasurement(
      Ok(run_, gpu_, gemm_, s.UpsertConfig(tiled_v2, "MWG=32", "h32", R"({"MWG": 32})"), 3.0));
  QueryFilter filter;
  filter.device_id = gpu_;
  filter.best_only = true;
  filter.params = {{"MWG", "32"}};
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/tiled@bbbb MWG=32 ok 3.000000 -"}));
  filter.params = {{"MWG", "64"}};  // measured by aaaa only
  EXPECT_EQ(Describe(s.Query(filter)), std::vector<std::string>{});
  filter.template_hash = "aaaa";  // that version, asked for
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/tiled@aaaa MWG=64 ok 4.000000 2.000000"}));
  filter.best_only = false;  // every row that matches, of every version
  filter.template_hash.reset();
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/tiled@aaaa MWG=64 ok 4.000000 2.000000"}));
}

TEST_F(StoreQueryTest, SpeedupNeedsAnOkDefault) {
  Store& s = *store_;
  int64_t conv = s.UpsertProblem(kConv, "conv2d", 73728.0);
  MeasurementRecord failed_default = Failed(run_, gpu_, conv, c16_, beast::Status::kWrongResult);
  failed_default.is_default = true;
  s.RecordMeasurement(failed_default);
  s.RecordMeasurement(Ok(run_, gpu_, conv, c32_, 0.5));
  QueryFilter filter;
  filter.problem_key = kConv;
  EXPECT_EQ(Describe(s.Query(filter)),
            (std::vector<std::string>{"GPU gemm/tiled@aaaa MWG=32 ok 0.500000 -",
                                      "GPU gemm/tiled@aaaa MWG=16 wrong_result - -"}));
}

TEST_F(StoreQueryTest, WinnersCarryWhatTheExporterNeeds) {
  std::vector<WinnerRow> winners = store_->Winners();
  ASSERT_EQ(winners.size(), 2u);
  EXPECT_EQ(winners[0].device_name, "CPU");
  EXPECT_EQ(winners[0].config_key, "MWG=16");
  EXPECT_EQ(winners[0].median_ms, 5.0);
  EXPECT_EQ(winners[0].speedup_vs_default, 1.0);

  const WinnerRow& gpu = winners[1];
  EXPECT_EQ(gpu.device_id, gpu_);
  EXPECT_EQ(gpu.backend, "opencl");
  EXPECT_EQ(gpu.device_name, "GPU");
  EXPECT_EQ(gpu.vendor, "Vendor");
  EXPECT_EQ(gpu.driver_version, "1.0");
  EXPECT_EQ(gpu.arch, "OpenCL 3.0");
  EXPECT_EQ(gpu.problem_id, gemm_);
  EXPECT_EQ(gpu.problem_key, kGemm);
  EXPECT_EQ(gpu.op, "gemm");
  EXPECT_EQ(gpu.template_id, tiled_);
  EXPECT_EQ(gpu.template_name, "gemm/tiled");
  EXPECT_EQ(gpu.template_hash, "aaaa");
  EXPECT_EQ(gpu.source_path, "kernel_templates/gemm/tiled.cl.j2");
  EXPECT_EQ(gpu.config_id, c32_);
  EXPECT_EQ(gpu.config_key, "MWG=32");
  EXPECT_EQ(gpu.params_json, R"({"MWG": 32})");
  EXPECT_EQ(gpu.median_ms, 2.0);
  EXPECT_EQ(gpu.gflops, 0.5);
  EXPECT_EQ(gpu.speedup_vs_default, 4.0);

  std::vector<WinnerRow> cpu_only = store_->Winners(cpu_);
  ASSERT_EQ(cpu_only.size(), 1u);
  EXPECT_EQ(cpu_only[0].device_id, cpu_);
}

}  // namespace
}  // namespace results_db
