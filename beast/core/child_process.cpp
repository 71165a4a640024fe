// Starting, reading and reaping a child program (child_process.hpp).
#include "beast/core/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "beast/core/error.hpp"

namespace beast {
namespace {

constexpr size_t kOutputKeep = 4096;

void CloseFd(int* fd) {
  if (*fd >= 0) {
    ::close(*fd);
    *fd = -1;
  }
}

// The descriptors the child is given, made before fork: the source of each
// target descriptor (-1: leave it as it is), and the exec-error pipe.
struct Wiring {
  int source[3] = {-1, -1, -1};  // stdin, stdout, stderr
  int socket_source = -1;
  int socket_target = -1;
  int exec_error = -1;  // write end; carries exec's errno if exec fails
  int highest_target = 2;
};

// The child between fork and exec: only async-signal-safe calls, since the
// parent may have other threads (the OpenCL runtime's, the compile threads).
[[noreturn]] void ExecChild(const ChildProcess::Options& o, const Wiring& w, pid_t parent,
                            char* const* argv) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  if (o.ignore_interrupt) signal(SIGINT, SIG_IGN);
  // Die with the parent, even one killed with SIGKILL; if it died before this
  // line ran, the parent is already someone else.
  if (o.die_with_parent && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
    _exit(126);
  if (o.no_core_dump) {
    // A kernel that faults must not leave a core file the size of its buffers.
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
  }
  // Lift every source above the targets first, so no dup2 clobbers one.
  const int lift = w.highest_target + 2;
  int lifted[3];
  for (int i = 0; i < 3; ++i) {
    lifted[i] = w.source[i] < 0 ? -1 : fcntl(w.source[i], F_DUPFD_CLOEXEC, lift);
    if (w.source[i] >= 0 && lifted[i] < 0) _exit(127);
  }
  const int socket_lifted = w.socket_source < 0 ? -1 : fcntl(w.socket_source, F_DUPFD_CLOEXEC, lift);
  const int error_lifted = fcntl(w.exec_error, F_DUPFD_CLOEXEC, lift);
  if ((w.socket_source >= 0 && socket_lifted < 0) || error_lifted < 0) _exit(127);
  for (int i = 0; i < 3; ++i) {
    if (lifted[i] >= 0 && dup2(lifted[i], i) < 0) _exit(127);
  }
  if (socket_lifted >= 0 && dup2(socket_lifted, w.socket_target) < 0) _exit(127);
  // The exec-error pipe sits just above the targets and closes on exec.
  const int error_fd = w.highest_target + 1;
  if (dup2(error_lifted, error_fd) < 0 || fcntl(error_fd, F_SETFD, FD_CLOEXEC) < 0) _exit(127);
  if (o.close_others) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, static_cast<unsigned>(error_fd + 1), ~0u, 0u) != 0)
#endif
    {
      for (int fd = error_fd + 1; fd < 65536; ++fd) close(fd);
    }
  }
  if (o.search_path) {
    execvp(argv[0], argv);
  } else {
    execv(argv[0], argv);
  }
  int e = errno;
  ssize_t ignored = write(error_fd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

}  // namespace

ChildProcess::ChildProcess(const Options& o, const std::string& what) {
  BEAST_CHECK(!o.argv.empty());
  const bool wants_socket = o.socket_fd >= 0 || o.in == Stream::kSocket ||
                            o.out == Stream::kSocket || o.err == Stream::kSocket;
  const bool wants_output = o.out == Stream::kCapture || o.err == Stream::kCapture;
  const bool wants_null = o.in == Stream::kNull || o.out == Stream::kNull || o.err == Stream::kNull;
  // Every descriptor made here is close-on-exec: another thread's child
  // started meanwhile inherits none of them.
  int sv[2] = {-1, -1}, out_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1}, null_fd = -1;
  auto give_up = [&](const char* call) {
    const int e = errno;
    for (int* fd : {&sv[0], &sv[1], &out_pipe[0], &out_pipe[1], &exec_pipe[0], &exec_pipe[1],
                    &null_fd})
      CloseFd(fd);
    throw Error(ErrorCode::kEnvironment, what + ": " + call + ": " + strerror(e));
  };
  if (wants_socket && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    give_up("socketpair");
  if (wants_output && pipe2(out_pipe, O_CLOEXEC) != 0) give_up("pipe");
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) give_up("pipe");
  if (wants_null && (null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) give_up("/dev/null");

  Wiring w;
  const Stream streams[3] = {o.in, o.out, o.err};
  for (int i = 0; i < 3; ++i) {
    switch (streams[i]) {
      case Stream::kInherit:
        break;
      case Stream::kNull:
        w.source[i] = null_fd;
        break;
      case Stream::kCapture:
        w.source[i] = out_pipe[1];
        break;
      case Stream::kSocket:
        w.source[i] = sv[1];
        break;
    }
  }
  if (o.socket_fd >= 0) {
    w.socket_source = sv[1];
    w.socket_target = o.socket_fd;
    w.highest_target = std::max(w.highest_target, o.socket_fd);
  }
  w.exec_error = exec_pipe[1];
  std::vector<std::string> args = o.argv;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) ExecChild(o, w, parent, argv.data());
  if (pid < 0) give_up("fork");
  for (int* fd : {&sv[1], &out_pipe[1], &exec_pipe[1], &null_fd}) CloseFd(fd);
  pid_ = pid;
  socket_ = sv[0];
  output_ = out_pipe[0];
  if (socket_ >= 0 && o.nonblocking_socket)
    fcntl(socket_, F_SETFL, fcntl(socket_, F_GETFL) | O_NONBLOCK);
  if (output_ >= 0) fcntl(output_, F_SETFL, fcntl(output_, F_GETFL) | O_NONBLOCK);
  // The exec-error pipe closes on a successful exec, or carries exec's errno.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  CloseFd(&exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    Wait();
    CloseFd(&socket_);
    CloseFd(&output_);
    throw Error(ErrorCode::kEnvironment, what + ": " + strerror(exec_errno));
  }
}

ChildProcess::~ChildProcess() {
  CloseSocket();  // end of stream: a child serving requests leaves
  if (!reaped_) Reap();
  CloseFd(&output_);
}

void ChildProcess::CloseSocket() { CloseFd(&socket_); }

void ChildProcess::DrainOutput() {
  char chunk[4096];
  while (output_ >= 0) {
    ssize_t n = ::read(output_, chunk, sizeof chunk);
    if (n > 0) {
      output_tail_.append(chunk, static_cast<size_t>(n));
      if (output_tail_.size() > kOutputKeep)
        output_tail_.erase(0, output_tail_.size() - kOutputKeep);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) CloseFd(&output_);  // the child closed it: it is leaving
    return;
  }
}

std::string ChildProcess::LastOutputLine() const {
  size_t end = output_tail_.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t start = output_tail_.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return output_tail_.substr(start, end - start + 1);
}

bool ChildProcess::TryReap() {
  if (!reaped_ && waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
  return reaped_;
}

void ChildProcess::Kill() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  Wait();
  CloseSocket();
  DrainOutput();
}

std::string ChildProcess::Reap(std::chrono::milliseconds grace) {
  if (!reaped_) {
    const auto give_up = std::chrono::steady_clock::now() + grace;
    while (!TryReap() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
    DrainOutput();
  }
  return Describe();
}

int ChildProcess::Wait() {
  while (!reaped_) {
    if (waitpid(pid_, &status_, 0) == pid_) {
      reaped_ = true;
    } else if (errno != EINTR) {
      break;  // not our child any more (it cannot happen): nothing to wait for
    }
  }
  return status_;
}

std::string ChildProcess::Describe() const {
  if (WIFSIGNALED(status_)) {
    int sig = WTERMSIG(status_);
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status_)) return "exited with code " + std::to_string(WEXITSTATUS(status_));
  return "ended with wait status " + std::to_string(status_);
}

}  // namespace beast
