// Starting and watching processes from a test: the one runner of a process
// without waiting (SpawnProcess: an argv, its output optionally into a file;
// SpawnShell: a shell command line), listing a process's children and telling
// whether one is still there (faults made for real: kill signals mid-run).
// Its database is read beside it with support/sqlite_rows.hpp (SqlCount).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

// Starts argv[0] (a path: PATH is not searched) with `argv`, this process's
// environment and its file descriptors, without waiting; with `output`, its
// stdout and stderr both go into that file (created or truncated); with
// own_process_group, it leads a process group of its own (its pid is the
// group id), as a shell job would. The pid, or -1 (a test failure) when it
// could not start.
inline pid_t SpawnProcess(const std::vector<std::string>& argv, const std::string& output = "",
                          bool own_process_group = false) {
  if (argv.empty()) {
    ADD_FAILURE() << "SpawnProcess: no program to start";
    return -1;
  }
  std::vector<std::string> args = argv;  // posix_spawn takes char* const[]
  std::vector<char*> pointers;
  for (std::string& arg : args) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!output.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (own_process_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = -1;
  const int error = posix_spawn(&pid, pointers[0], &actions, &attributes, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(error);
    return -1;
  }
  return pid;
}

// Starts `sh -c command` (which should `exec` the command, so the pid is
// its); the pid, or -1 (a test failure).
inline pid_t SpawnShell(const std::string& command) {
  return SpawnProcess({"/bin/sh", "-c", command});
}

}  // namespace beast::testing
