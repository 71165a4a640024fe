// Tests of the result store's query filters on a real database: device name
// (every driver version), parameter values from params_json (numbers and
// strings, always bound), top-k per (device, problem, template), the listing of
// devices and parameter names, and the comparison of two devices.
#include <gtest/gtest.h>

#include <optional>
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
const char kConv[] = "conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32";

// gemm/tiled configs (MWG, VW, MODE): a 16/1/"fast", b 32/1/"safe", c 32/2/"fast",
// d 64/4/"fast". direct configs: e (WG 8).
// GPU driver 1.0, gemm: a 8 ms (default), b 2, c 4, d compile_error.
// GPU driver 2.0, gemm: d 1.5.   CPU, gemm: a 5 (default), b 10.
// GPU 1.0, gemm2: a 3.   CPU, gemm2: c 6.   CPU, conv: e 7.
class StoreFilterTest : public testing_util::StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    store_.emplace(Store::Open(PathOf("beast.db")));
    Store& s = *store_;
    int64_t run = s.BeginRun("beast tune", "0.1.0");
    int64_t gpu = s.UpsertDevice(Device("GPU"));
    int64_t gpu2 = s.UpsertDevice(Device("GPU", "2.0"));
    int64_t cpu = s.UpsertDevice(Device("CPU"));
    int64_t gemm = s.UpsertProblem(kGemm, "gemm", 524288.0);
    int64_t gemm2 = s.UpsertProblem(kGemm2, "gemm", 1048576.0);
    int64_t conv = s.UpsertProblem(kConv, "conv2d", 73728.0);
    int64_t tiled = s.UpsertTemplate("gemm/tiled", "aaaa", "");
    int64_t direct = s.UpsertTemplate("conv2d/direct", "dddd", "");
    int64_t a = s.UpsertConfig(tiled, "a", "ha", R"({"MWG": 16, "VW": 1, "MODE": "fast"})");
    int64_t b = s.UpsertConfig(tiled, "b", "hb", R"({"MWG": 32, "VW": 1, "MODE": "safe"})");
    int64_t c = s.UpsertConfig(tiled, "c", "hc", R"({"MWG": 32, "VW": 2, "MODE": "fast"})");
    int64_t d = s.UpsertConfig(tiled, "d", "hd", R"({"MWG": 64, "VW": 4, "MODE": "fast"})");
    int64_t e = s.UpsertConfig(direct, "e", "he", R"({"WG": 8})");
    s.RecordMeasurement(Ok(run, gpu, gemm, a, 8.0, /*is_default=*/true));
    s.RecordMeasurement(Ok(run, gpu, gemm, b, 2.0));
    s.RecordMeasurement(Ok(run, gpu, gemm, c, 4.0));
    s.RecordMeasurement(Failed(run, gpu, gemm, d, beast::Status::kCompileError));
    s.RecordMeasurement(Ok(run, gpu2, gemm, d, 1.5));
    s.RecordMeasurement(Ok(run, cpu, gemm, a, 5.0, /*is_default=*/true));
    s.RecordMeasurement(Ok(run, cpu, gemm, b, 10.0));
    s.RecordMeasurement(Ok(run, gpu, gemm2, a, 3.0));
    s.RecordMeasurement(Ok(run, cpu, gemm2, c, 6.0));
    s.RecordMeasurement(Ok(run, cpu, conv, e, 7.0));
  }
  void TearDown() override {
    store_.reset();
    StoreTest::TearDown();
  }

  // "device/driver problem-op config status median" per row.
  std::vector<std::string> Rows(const QueryFilter& filter) {
    std::vector<std::string> lines;
    for (const ResultRow& r : store_->Query(filter)) {
      std::string problem = r.problem_key.substr(0, r.problem_key.find(','));
      lines.push_back(r.device_name + " " + problem + " " + r.config_key + " " +
                      beast::StatusName(r.status) + " " +
                      (r.median_ms ? std::to_string(*r.median_ms).substr(0, 4) : "-"));
    }
    return lines;
  }

  std::optional<Store> store_;
};

TEST_F(StoreFilterTest, DeviceNameCoversEveryDriverVersion) {
  QueryFilter filter;
  filter.device_name = "GPU";
  filter.problem_key = kGemm;
  EXPECT_EQ(Rows(filter),
            (std::vector<std::string>{"GPU gemm:M=64 b ok 2.00", "GPU gemm:M=64 c ok 4.00",
                                      "GPU gemm:M=64 a ok 8.00", "GPU gemm:M=64 d compile_error -",
                                      "GPU gemm:M=64 d ok 1.50"}));
  filter.device_name = "gpu";  // exact, case and all
  EXPECT_TRUE(Rows(filter).empty());
}

TEST_F(StoreFilterTest, ParameterValuesMatchNumbersAndStrings) {
  QueryFilter filter;
  filter.device_name = "GPU";
  filter.problem_key = kGemm;
  filter.params = {{"MWG", "32"}};
  EXPECT_EQ(Rows(filter),
            (std::vector<std::string>{"GPU gemm:M=64 b ok 2.00", "GPU gemm:M=64 c ok 4.00"}));
  filter.params = {{"MWG", "32.0"}};  // the same number
  EXPECT_EQ(Rows(filter).size(), 2u);
  filter.params = {{"MWG", "32"}, {"VW", "2"}};  // all must hold
  EXPECT_EQ(Rows(filter), (std::vector<std::string>{"GPU gemm:M=64 c ok 4.00"}));
  filter.params = {{"MODE", "safe"}};
  EXPECT_EQ(Rows(filter), (std::vector<std::string>{"GPU gemm:M=64 b ok 2.00"}));
  filter.params = {{"MWG", "'32' OR 1=1"}};  // data, never SQL
  EXPECT_TRUE(Rows(filter).empty());
  filter.params = {{"NOPE", "1"}};  // a name no config has matches nothing
  EXPECT_TRUE(Rows(filter).empty());
  filter.params = {{"MWG\" OR 1=1 --", "1"}};
  EXPECT_THROW(store_->Query(filter), beast::Error);
}

TEST_F(StoreFilterTest, BestWithParameterValuesIsTheBestOfThoseConfigs) {
  QueryFilter filter;
  filter.best_only = true;
  filter.problem_key = kGemm;
  filter.params = {{"MODE", "fast"}};
  EXPECT_EQ(Rows(filter),
            (std::vector<std::string>{"CPU gemm:M=64 a ok 5.00", "GPU gemm:M=64 c ok 4.00",
                                      "GPU gemm:M=64 d ok 1.50"}));
}

TEST_F(StoreFilterTest, TopKPerDeviceProblemTemplate) {
  QueryFilter filter;
  filter.top_k = 2;
  filter.op = "gemm";
  EXPECT_EQ(Rows(filter),
            (std::vector<std::string>{
                "CPU gemm:M=128 c ok 6.00", "CPU gemm:M=64 a ok 5.00", "CPU gemm:M=64 b ok 10.0",
                "GPU gemm:M=128 a ok 3.00", "GPU gemm:M=64 b ok 2.00",
                "GPU gemm:M=64 c ok 4.00",  // failures never rank
                "GPU gemm:M=64 d ok 1.50",  // the other driver is another device
            }));
  filter.top_k = 1;
  QueryFilter best;
  best.best_only = true;
  best.op = "gemm";
  EXPECT_EQ(Rows(filter), Rows(best));
  filter.top_k = -1;
  EXPECT_THROW(store_->Query(filter), beast::Error);
}

TEST_F(StoreFilterTest, DevicesAndParameterNames) {
  std::vector<std::string> devices;
  for (const DeviceRow& d : store_->Devices())
    devices.push_back(d.name + " " + d.backend + " " + d.driver_version);
  EXPECT_EQ(devices,
            (std::vector<std::string>{"CPU opencl 1.0", "GPU opencl 1.0", "GPU opencl 2.0"}));
  EXPECT_EQ(store_->ParameterNames(std::nullopt),
            (std::vector<std::string>{"MODE", "MWG", "VW", "WG"}));
  EXPECT_EQ(store_->ParameterNames(std::string("gemm/tiled")),
            (std::vector<std::string>{"MODE", "MWG", "VW"}));
  EXPECT_TRUE(store_->ParameterNames(std::string("nope")).empty());
}

TEST_F(StoreFilterTest, CompareTwoDevicesOnTheirCommonProblems) {
  // GPU is compared by one driver's rows, not mixed: driver 1.0's, whose
  // best rows include the one measured last (gemm2). gemm: GPU's best 2 (b;
  // driver 2.0's d at 1.5 is not among them) vs CPU's 5; gemm2: GPU 3 vs
  // CPU 6; conv: CPU only, left out.
  std::vector<ComparisonRow> rows = store_->Compare("GPU", "CPU", QueryFilter());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].problem_key, kGemm2);
  EXPECT_EQ(rows[0].a.config_key, "a");
  EXPECT_EQ(rows[0].a.median_ms, 3.0);
  EXPECT_EQ(rows[0].b.config_key, "c");
  EXPECT_EQ(rows[0].b.median_ms, 6.0);
  EXPECT_EQ(rows[0].ratio, 0.5);
  EXPECT_EQ(rows[1].problem_key, kGemm);
  EXPECT_EQ(rows[1].a.device_name, "GPU");
  EXPECT_EQ(rows[1].a.template_name, "gemm/tiled");
  EXPECT_EQ(rows[1].a.config_key, "b");
  EXPECT_EQ(rows[1].a.median_ms, 2.0);
  EXPECT_EQ(rows[1].b.device_name, "CPU");
  EXPECT_EQ(rows[1].b.config_key, "a");
  EXPECT_EQ(rows[1].b.median_ms, 5.0);
  EXPECT_EQ(rows[1].ratio, 0.4);

  QueryFilter slow_configs;
  slow_configs.params = {{"MWG", "32"}};  // b and c only
  rows = store_->Compare("CPU", "GPU", slow_configs);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].problem_key, kGemm);
  EXPECT_EQ(rows[0].a.median_ms, 10.0);
  EXPECT_EQ(rows[0].b.median_ms, 2.0);
  EXPECT_EQ(rows[0].ratio, 5.0);

  EXPECT_TRUE(store_->Compare("GPU", "TPU", QueryFilter()).empty());
}

}  // namespace
}  // namespace results_db
