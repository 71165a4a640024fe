// Runs the beast binary (or any command) through the shell for whole-pipeline
// tests, capturing exit code and output (processes started without the shell:
// SpawnProcess in process_watch.hpp). Including it gives the test process
// a private cache home (PrivateCacheHome below), so no beast it starts reads
// or writes the user's caches, or another test's.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/test_dir.hpp"  // FreshTestDir, for the tests that include this header
#include "support/test_environment.hpp"

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

inline std::string BeastBinary() { return std::string(BEAST_TEST_BINARY_DIR) + "/beast/beast"; }

// Before main: beast's caches (BEAST_CACHE_DIR, BEAST_TUNED_CACHE_DIR) move
// into a fresh folder of this test process (CTest runs each test in a
// process of its own), so the beast program cache and an exported library's
// cache start empty in every test and are removed with it. PoCL's kernel
// cache stays shared (test_environment.hpp). These tests check what the
// pipeline does, not how fast a kernel runs, so PoCL builds their kernels
// unoptimized (BuildPoclKernelsUnoptimized, for every process of a test
// executable that includes this header: the beast processes it starts and
// its own): CTest took 535 s instead of 614 s with their kernels not cached
// (2026-11-28). The correctness sweeps run kernels in-process without this
// header and choose for themselves (correctness_sweep_test.cpp). No test
// here measures a config that crashes unoptimized (test_environment.hpp);
// one that must would set POCL_EXTRA_BUILD_FLAGS= (empty) itself.
inline const std::string kPrivateCacheHome = [] {
  BuildPoclKernelsUnoptimized();
  const pid_t owner = getpid();
  const std::filesystem::path home =
      std::filesystem::temp_directory_path() / ("beast_test_cache_" + std::to_string(owner));
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(home);
  setenv("BEAST_CACHE_DIR", (home / "programs").c_str(), 1);
  setenv("BEAST_TUNED_CACHE_DIR", (home / "beast_tuned").c_str(), 1);
  static const pid_t creator = owner;
  std::atexit([] {
    // Only the process that made it: a forked child that exits leaves it.
    if (getpid() == creator) {
      std::error_code ignored;
      std::filesystem::remove_all(
          std::filesystem::temp_directory_path() / ("beast_test_cache_" + std::to_string(creator)),
          ignored);
    }
  });
  return home.string();
}();

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
