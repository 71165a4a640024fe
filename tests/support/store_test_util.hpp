// Shared by the result store's tests: a fixture with a fresh temporary folder
// per test, raw SQLite access to check files independently of the store, and
// builders of device and measurement records.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "beast/core/error.hpp"
#include "results_db/store.hpp"

namespace results_db {
namespace testing_util {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("beast_store_test_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  // Runs SQL on a file directly, as another tool would.
  static void RawExec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    std::string text = message != nullptr ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << text;
  }

  // The first column of the first row of a query, as text.
  static std::string RawQuery(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
    std::string value;
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
      value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
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
