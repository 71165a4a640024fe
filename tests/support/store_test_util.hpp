// Shared by the result store's tests: a fixture with a fresh temporary folder
// per test (FreshTestDir), raw SQLite access to check files independently of
// the store (through sqlite_rows.hpp), and builders of device and measurement
// records.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"
#include "support/sqlite_rows.hpp"
#include "support/test_dir.hpp"

namespace results_db {
namespace testing_util {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = beast::testing::FreshTestDir("store_test"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  // Runs SQL on a file directly, as another tool would (SqlExec).
  static void RawExec(const std::string& path, const std::string& sql) {
    beast::testing::SqlExec(path, sql);
  }

  // The first row of a query of one column, as text ("" when there is no
  // row, "NULL" for a NULL); read as another tool would (SqlRows).
  static std::string RawQuery(const std::string& path, const std::string& sql) {
    const std::vector<std::string> rows = beast::testing::SqlRows(path, sql);
    return rows.empty() ? "" : rows.front();
  }

  // The message of the beast::Error that opening `path` throws.
  static std::string OpenError(const std::string& path) {
    try {
      Store::Open(path);
    } catch (const beast::Error& error) {
      EXPECT_EQ(error.code(), beast::ErrorCode::kDatabase);
      return error.what();
    }
    return "no error";
  }

  fs::path dir_;
};

inline DeviceRecord Device(const std::string& name, const std::string& driver = "1.0") {
  DeviceRecord device;
  device.backend = beast::Backend::kOpenCL;
  device.name = name;
  device.vendor = "Vendor";
  device.driver_version = driver;
  device.arch = "OpenCL 3.0";
  device.limits_json = R"({"max_work_group_size": 1024})";
  return device;
}

inline MeasurementRecord Ok(int64_t run, int64_t device, int64_t problem, int64_t config,
                            double median, bool is_default = false) {
  MeasurementRecord m;
  m.run_id = run;
  m.device_id = device;
  m.problem_id = problem;
  m.config_id = config;
  m.is_default = is_default;
  m.status = beast::Status::kOk;
  m.samples_ms = {median, median};
  m.median_ms = median;
  m.spread = 0.0;
  m.gflops = 1.0 / median;
  m.max_error = 0.0;
  m.compile_ms = 100.0;
  return m;
}

inline MeasurementRecord Failed(int64_t run, int64_t device, int64_t problem, int64_t config,
                                beast::Status status) {
  MeasurementRecord m;
  m.run_id = run;
  m.device_id = device;
  m.problem_id = problem;
  m.config_id = config;
  m.status = status;
  m.error_text = "error: too many resources requested";
  m.build_log = "line 1: error";
  return m;
}

}  // namespace testing_util
}  // namespace results_db
