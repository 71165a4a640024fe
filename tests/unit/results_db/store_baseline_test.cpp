// Tests of vendor-library baselines in the result store, on real database
// files: recorded once per (device, problem, library, routine), resume
// lookups, status checks, Store::Baselines filters, and the speed-up of each
// queried measurement over each library's fastest ok baseline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "support/store_test_util.hpp"

namespace results_db {
namespace {

using testing_util::Device;
using testing_util::Failed;
using testing_util::Ok;

const char kGemm[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";
const char kGemm2[] = "gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32";

BaselineRecord Baseline(int64_t run, int64_t device, int64_t problem, const std::string& library,
                        const std::string& routine, double median) {
  BaselineRecord b;
  b.run_id = run;
  b.device_id = device;
  b.problem_id = problem;
  b.library = library;
  b.routine = routine;
  b.status = beast::Status::kOk;
  b.samples_ms = {median, median * 1.5};
  b.median_ms = median;
  b.spread = 0.25;
  b.gflops = 2.0 / median;
  b.max_error = 1e-6;
  b.library_version = "1.6.3";
  return b;
}

BaselineRecord FailedBaseline(int64_t run, int64_t device, int64_t problem,
                              const std::string& library, const std::string& routine,
                              beast::Status status) {
  BaselineRecord b;
  b.run_id = run;
  b.device_id = device;
  b.problem_id = problem;
  b.library = library;
  b.routine = routine;
  b.status = status;
  b.error_text = "CLBlast: kInvalidDimension";
  return b;
}

// GPU gemm: tuned MWG=16 8 ms (default), MWG=32 2 ms, MWG=64 compile_error.
// CPU gemm: tuned MWG=16 5 ms. gemm2 on the GPU: MWG=16 1 ms.
class StoreBaselineTest : public testing_util::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    path_ = PathOf("beast.db");
    store_.emplace(Store::Open(path_));
    Store& s = *store_;
    run_ = s.BeginRun("beast tune", "0.1.0");
    gpu_ = s.UpsertDevice(Device("GPU"));
    cpu_ = s.UpsertDevice(Device("CPU"));
    gemm_ = s.UpsertProblem(kGemm, "gemm", 524288.0);
    gemm2_ = s.UpsertProblem(kGemm2, "gemm", 1048576.0);
    int64_t tiled = s.UpsertTemplate("gemm/tiled", "aaaa", "");
    int64_t c16 = s.UpsertConfig(tiled, "MWG=16", "h16", R"({"MWG": 16})");
    int64_t c32 = s.UpsertConfig(tiled, "MWG=32", "h32", R"({"MWG": 32})");
    int64_t c64 = s.UpsertConfig(tiled, "MWG=64", "h64", R"({"MWG": 64})");
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, c16, 8.0, /*is_default=*/true));
    s.RecordMeasurement(Ok(run_, gpu_, gemm_, c32, 2.0));
    s.RecordMeasurement(Failed(run_, gpu_, gemm_, c64, beast::Status::kCompileError));
    s.RecordMeasurement(Ok(run_, cpu_, gemm_, c16, 5.0, /*is_default=*/true));
    s.RecordMeasurement(Ok(run_, gpu_, gemm2_, c16, 1.0, /*is_default=*/true));
  }
  void TearDown() override {
    store_.reset();
    StoreTest::TearDown();
  }

  // "device library routine status median" per baseline row.
  static std::vector<std::string> Describe(const std::vector<BaselineRow>& rows) {
    std::vector<std::string> lines;
    for (const BaselineRow& r : rows) {
      lines.push_back(r.device_name + " " + r.problem_key.substr(0, 10) + " " + r.library + " " +
                      r.routine + " " + beast::StatusName(r.status) + " " +
                      (r.median_ms ? std::to_string(*r.median_ms) : "-"));
    }
    return lines;
  }

  // "config library routine baseline_ms speedup" per baseline of each row.
  static std::vector<std::string> DescribeSpeedups(const std::vector<ResultRow>& rows) {
    std::vector<std::string> lines;
    for (const ResultRow& r : rows) {
      for (const BaselineSpeedup& b : r.baselines) {
        lines.push_back(r.device_name + " " + r.config_key + " " + b.library + " " + b.routine +
                        " " + std::to_string(b.median_ms) + " " +
                        (b.speedup ? std::to_string(*b.speedup) : "-"));
      }
    }
    return lines;
  }

  std::string path_;
  std::optional<Store> store_;
  int64_t run_ = 0, gpu_ = 0, cpu_ = 0, gemm_ = 0, gemm2_ = 0;
};

TEST_F(StoreBaselineTest, FirstBaselineIsKeptAndResumeSeesIt) {
  Store& s = *store_;
  EXPECT_FALSE(s.HasBaseline(gpu_, gemm_, "clblast", "Sgemm"));
  EXPECT_TRUE(s.RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Sgemm", 4.0)));
  EXPECT_TRUE(s.HasBaseline(gpu_, gemm_, "clblast", "Sgemm"));
  EXPECT_FALSE(s.HasBaseline(gpu_, gemm_, "clblast", "Xgemm"));
  EXPECT_FALSE(s.HasBaseline(cpu_, gemm_, "clblast", "Sgemm"));
  EXPECT_FALSE(s.HasBaseline(gpu_, gemm2_, "clblast", "Sgemm"));
  EXPECT_FALSE(s.HasBaseline(gpu_, gemm_, "cublas", "Sgemm"));
  EXPECT_FALSE(s.RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Sgemm", 1.0)));
  EXPECT_FALSE(s.RecordBaseline(
      FailedBaseline(run_, gpu_, gemm_, "clblast", "Sgemm", beast::Status::kRuntimeError)));

  std::vector<BaselineRow> rows = s.Baselines();
  ASSERT_EQ(rows.size(), 1u);
  const BaselineRow& b = rows[0];
  EXPECT_EQ(b.run_id, run_);
  EXPECT_EQ(b.device_id, gpu_);
  EXPECT_EQ(b.backend, "opencl");
  EXPECT_EQ(b.device_name, "GPU");
  EXPECT_EQ(b.problem_id, gemm_);
  EXPECT_EQ(b.problem_key, kGemm);
  EXPECT_EQ(b.library, "clblast");
  EXPECT_EQ(b.routine, "Sgemm");
  EXPECT_EQ(b.status, beast::Status::kOk);
  EXPECT_EQ(b.samples_json, "[4.0,6.0]");
  EXPECT_EQ(b.median_ms, 4.0);
  EXPECT_EQ(b.spread, 0.25);
  EXPECT_EQ(b.gflops, 0.5);
  EXPECT_EQ(b.max_error, 1e-6);
  EXPECT_EQ(b.error_text, "");
  EXPECT_EQ(b.library_version, "1.6.3");
  EXPECT_EQ(b.measured_at.size(), 24u) << b.measured_at;  // 2024-01-02T03:04:05.678Z
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM baselines"), "1");
}

TEST_F(StoreBaselineTest, FailedBaselinesAreData) {
  Store& s = *store_;
  EXPECT_TRUE(s.RecordBaseline(
      FailedBaseline(run_, gpu_, gemm_, "clblast", "Convgemm", beast::Status::kUnsupported)));
  EXPECT_TRUE(s.RecordBaseline(
      FailedBaseline(run_, cpu_, gemm_, "clblast", "Sgemm", beast::Status::kWrongResult)));
  BaselineFilter failed;
  failed.status = beast::Status::kUnsupported;
  std::vector<BaselineRow> rows = s.Baselines(failed);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].routine, "Convgemm");
  EXPECT_EQ(rows[0].median_ms, std::nullopt);
  EXPECT_EQ(rows[0].samples_json, "[]");
  EXPECT_EQ(rows[0].error_text, "CLBlast: kInvalidDimension");
  // A failed baseline gives no speed-up.
  for (const ResultRow& r : s.Query(QueryFilter())) EXPECT_TRUE(r.baselines.empty());
}

TEST_F(StoreBaselineTest, RecordBaselineChecksItsInput) {
  Store& s = *store_;
  auto code_of = [&](const BaselineRecord& b) {
    try {
      s.RecordBaseline(b);
    } catch (const beast::Error& error) {
      return error.code();
    }
    return beast::ErrorCode::kInternal;
  };
  EXPECT_EQ(code_of(FailedBaseline(run_, gpu_, gemm_, "clblast", "Sgemm",
                                   beast::Status::kPrunedAfterCompile)),
            beast::ErrorCode::kBadArgument);
  EXPECT_EQ(code_of(Baseline(run_, gpu_, gemm_, "", "Sgemm", 1.0)), beast::ErrorCode::kBadArgument);
  EXPECT_EQ(code_of(Baseline(run_, gpu_, gemm_, "clblast", "", 1.0)),
            beast::ErrorCode::kBadArgument);
  EXPECT_EQ(code_of(Baseline(run_ + 1, gpu_, gemm_, "clblast", "Sgemm", 1.0)),  // no such run
            beast::ErrorCode::kDatabase);
  EXPECT_TRUE(s.Baselines().empty());
}

TEST_F(StoreBaselineTest, BaselinesFilterAndOrder) {
  Store& s = *store_;
  s.RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Sgemm", 4.0));
  s.RecordBaseline(Baseline(run_, gpu_, gemm_, "cublas", "Sgemm", 3.0));
  s.RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Convgemm", 6.0));
  s.RecordBaseline(Baseline(run_, cpu_, gemm_, "clblast", "Sgemm", 10.0));
  s.RecordBaseline(Baseline(run_, gpu_, gemm2_, "clblast", "Sgemm", 2.0));
  EXPECT_EQ(Describe(s.Baselines()), (std::vector<std::string>{
                                         "CPU gemm:M=64, clblast Sgemm ok 10.000000",
                                         "GPU gemm:M=128 clblast Sgemm ok 2.000000",
                                         "GPU gemm:M=64, clblast Convgemm ok 6.000000",
                                         "GPU gemm:M=64, clblast Sgemm ok 4.000000",
                                         "GPU gemm:M=64, cublas Sgemm ok 3.000000",
                                     }));
  BaselineFilter filter;
  filter.device_id = gpu_;
  filter.problem_key = kGemm;
  filter.library = "clblast";
  EXPECT_EQ(Describe(s.Baselines(filter)), (std::vector<std::string>{
                                               "GPU gemm:M=64, clblast Convgemm ok 6.000000",
                                               "GPU gemm:M=64, clblast Sgemm ok 4.000000",
                                           }));
}

TEST_F(StoreBaselineTest, QueryRowsCarrySpeedupOverEachLibrarysFastestBaseline) {
  Store& s = *store_;
  s.RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Sgemm", 4.0));
  s.RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Xgemm", 3.0));  // clblast's fastest
  s.RecordBaseline(FailedBaseline(run_, gpu_, gemm_, "clblast", "Ygemm", beast::Status::kTimeout));
  s.RecordBaseline(Baseline(run_, gpu_, gemm_, "cublas", "Sgemm", 1.0));
  s.RecordBaseline(Baseline(run_, cpu_, gemm_, "clblast", "Sgemm", 10.0));
  EXPECT_EQ(DescribeSpeedups(s.Query(QueryFilter())),
            (std::vector<std::string>{
                "CPU MWG=16 clblast Sgemm 10.000000 2.000000",
                "GPU MWG=32 clblast Xgemm 3.000000 1.500000",
                "GPU MWG=32 cublas Sgemm 1.000000 0.500000",
                "GPU MWG=16 clblast Xgemm 3.000000 0.375000",
                "GPU MWG=16 cublas Sgemm 1.000000 0.125000",
                "GPU MWG=64 clblast Xgemm 3.000000 -",  // compile_error: no speed-up
                "GPU MWG=64 cublas Sgemm 1.000000 -",
            }));  // gemm2 on the GPU has no baseline

  QueryFilter best;
  best.best_only = true;
  best.device_id = gpu_;
  EXPECT_EQ(DescribeSpeedups(s.Query(best)),
            (std::vector<std::string>{"GPU MWG=32 clblast Xgemm 3.000000 1.500000",
                                      "GPU MWG=32 cublas Sgemm 1.000000 0.500000"}));
}

TEST_F(StoreBaselineTest, SecondConnectionSeesRecordedBaselines) {
  Store reader = Store::OpenExisting(path_);
  store_->RecordBaseline(Baseline(run_, gpu_, gemm_, "clblast", "Sgemm", 4.0));
  EXPECT_TRUE(reader.HasBaseline(gpu_, gemm_, "clblast", "Sgemm"));
}

}  // namespace
}  // namespace results_db
