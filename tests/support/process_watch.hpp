// Watching a beast process from a test: start it through the shell without
// waiting, read its database beside it, list its children and tell whether
// a process is still there (faults made for real: kill signals mid-run).
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace beast::testing {

namespace fs = std::filesystem;

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The first column of the first row, read-only (beside the running tune);
// -1 while the database or its table is not there yet.
inline long long Count(const std::string& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  long long value = -1;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(handle, 2000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(handle);
  return value;
}

// A child process: its pid, argv[1] (the verb it runs as) and its whole
// command line, arguments separated by spaces.
struct ChildInfo {
  pid_t pid = 0;
  std::string verb;
  std::string command_line;
};

// The children of `parent`.
inline std::vector<ChildInfo> Children(pid_t parent) {
  std::vector<ChildInfo> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != parent)
      continue;
    ChildInfo child;
    child.pid = std::stoi(name);
    child.command_line = ReadFile(entry.path() / "cmdline");
    const size_t first = child.command_line.find('\0');
    if (first != std::string::npos)
      child.verb = child.command_line.substr(first + 1,
                                             child.command_line.find('\0', first + 1) - first - 1);
    for (char& c : child.command_line)
      if (c == '\0') c = ' ';
    out.push_back(std::move(child));
  }
  return out;
}

inline bool Alive(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

// Starts `sh -c command` (which should `exec` the command, so the pid is
// its); the pid, or -1.
inline pid_t SpawnShell(const std::string& command) {
  pid_t pid = -1;
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
    return -1;
  return pid;
}

}  // namespace beast::testing
