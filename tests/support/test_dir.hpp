// The one temporary folder helper of the C++ tests: an empty folder of the
// running test (FreshTestDir), which the test removes when it is done. Kept
// apart from command_runner.hpp (which includes it) so that unit tests get
// it without that header's private cache home.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace beast::testing {

// An empty folder for the running test:
// TMP/beast_<prefix>_<pid>_<test name>, removed first if it was there.
// Call it while a test runs (it reads the test's name).
inline std::filesystem::path FreshTestDir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("beast_" + prefix + "_" + std::to_string(getpid()) + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace beast::testing
