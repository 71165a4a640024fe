// ChildProcess: one child program beast starts and talks to — the device
// worker, a compile worker, the Jinja2 renderer, a device's tuning process,
// the Python analysis verbs —
// started with fork+exec in one place, so each gets the same care: only
// async-signal-safe calls between fork and exec (beast has threads), the
// descriptors it should have and no others, an exec failure reported as an
// error rather than a silent exit, its output collected without ever
// blocking it, and a reap that never waits without a deadline unless asked.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace beast {

class ChildProcess {
 public:
  // What one of the child's standard descriptors is.
  enum class Stream {
    kInherit,  // this process's own
    kNull,     // /dev/null
    kCapture,  // a pipe this process reads (stdout and stderr share one)
    kSocket,   // the child's end of the socket pair
  };
  struct Options {
    std::vector<std::string> argv;  // argv[0] is the program
    bool search_path = false;       // look argv[0] up in PATH (execvp)
    // The child's environment, "NAME=VALUE" each; empty: this process's.
    std::vector<std::string> env;
    Stream in = Stream::kNull;
    Stream out = Stream::kCapture;
    Stream err = Stream::kCapture;
    // The descriptor number the child's end of a socket pair gets (e.g. 3),
    // besides any standard stream marked kSocket; -1: none.
    int socket_fd = -1;
    bool nonblocking_socket = false;  // our end
    bool die_with_parent = false;     // SIGKILLed when this process dies, even by SIGKILL
    // Ctrl-C is this process's to handle. Otherwise the child starts with
    // SIGINT and SIGTERM at their defaults, whatever this process does with
    // them (Python needs that to turn Ctrl-C into KeyboardInterrupt).
    bool ignore_interrupt = false;
    bool no_core_dump = false;  // a crash leaves no core file
    // Whether to close every descriptor the child was not given. Off, the
    // child keeps those without close-on-exec (a terminal's, say).
    bool close_others = true;
  };

  // Starts the child. Throws Error(kEnvironment, "`what`: why") when the
  // process cannot be made or the program cannot be executed.
  ChildProcess(const Options& options, const std::string& what);
  // Closes our ends, then reaps the child within the grace period, SIGKILLing
  // it after that.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int socket() const { return socket_; }  // our end; -1 when none or closed
  int output() const { return output_; }  // captured output; -1 when none or closed
  void CloseSocket();

  // Reads what the child wrote so far without blocking and keeps the last
  // few KiB of it; closes output() at its end.
  void DrainOutput();
  // The last non-blank line the child wrote (its last words before a crash).
  std::string LastOutputLine() const;
  void ForgetOutput() { output_tail_.clear(); }

  // True once the child has exited and been reaped (never blocks).
  bool TryReap();
  // SIGKILLs the child (if it still runs) and reaps it.
  void Kill();
  // Waits up to `grace` for the child to exit, then SIGKILLs it; reaps it and
  // returns how it ended (Describe()).
  std::string Reap(std::chrono::milliseconds grace = std::chrono::seconds(2));
  // Waits for the child to exit, however long it takes; its wait status.
  int Wait();

  bool reaped() const { return reaped_; }
  int wait_status() const { return status_; }
  // "exited with code 3", "was killed by signal 11 (Segmentation fault)".
  std::string Describe() const;

 private:
  pid_t pid_ = -1;
  int socket_ = -1;
  int output_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string output_tail_;
};

}  // namespace beast
