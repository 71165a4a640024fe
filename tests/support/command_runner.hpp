// Runs the beast binary (or any command) through the shell for whole-pipeline
// tests, capturing exit code and output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace beast::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout, and stderr when merged
};

inline CommandResult RunCommand(const std::string& command, bool merge_stderr = true) {
  CommandResult r;
  FILE* pipe = popen((command + (merge_stderr ? " 2>&1" : "")).c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// An empty folder for the running test:
// TMP/beast_<prefix>_<pid>_<test name>, removed first if it was there.
inline std::filesystem::path FreshTestDir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("beast_" + prefix + "_" + std::to_string(getpid()) + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string BeastBinary() { return std::string(BEAST_TEST_BINARY_DIR) + "/beast/beast"; }

// The JSON document a command printed last (its --json output), skipping
// lines before it (progress on a merged stderr); null when there is none.
inline nlohmann::json JsonOf(const std::string& output) {
  for (size_t at = 0; at < output.size(); at = output.find('\n', at) + 1) {
    if (output[at] == '{' || output[at] == '[') {
      nlohmann::json json = nlohmann::json::parse(output.substr(at), nullptr, false);
      if (!json.is_discarded()) return json;
    }
    if (output.find('\n', at) == std::string::npos) break;
  }
  return nullptr;
}

inline size_t CountOccurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++count;
  return count;
}

}  // namespace beast::testing
