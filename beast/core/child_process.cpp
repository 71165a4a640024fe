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

extern char** environ;

namespace beast {
namespace {

constexpr size_t kOutputKeep = 4096;

// The char* array exec takes, null-terminated, over `strings`.
std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

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
                            char* const* argv, char* const* envp) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, o.ignore_interrupt ? SIG_IGN : SIG_DFL);
  if (!o.ignore_interrupt) signal(SIGTERM, SIG_DFL);
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
  const int socket_lifted =
      w.socket_source < 0 ? -1 : fcntl(w.socket_source, F_DUPFD_CLOEXEC, lift);
  const int error_lifted = fcntl(w.exec_error, F_DUPFD_CLOEXEC, lift);
  if ((w.socket_source >= 0 && socket_lifted < 0) || error_lifted < 0) _exit(127);
  for (int i = 0; i < 3; ++i) {
    if (lifted[i] >= 0 && dup2(lifted[i], i) < 0) _exit(127);
  }
  if (socket_lifted >= 0 && dup2(socket_lifted, w.socket_target) < 0) _exit(127);
  // The exec-error pipe closes on exec; when the rest is closed, it moves
  // just above the targets first, out of the way.
  int error_fd = error_lifted;
  if (o.close_others) {
    error_fd = w.highest_target + 1;
    if (dup2(error_lifted, error_fd) < 0 || fcntl(error_fd, F_SETFD, FD_CLOEXEC) < 0) _exit(127);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, static_cast<unsigned>(error_fd + 1), ~0u, 0u) != 0)
#endif
    {
      for (int fd = error_fd + 1; fd < 65536; ++fd) close(fd);
    }
  }
  if (o.search_path) {
    execvpe(argv[0], argv, envp);
  } else {
    execve(argv[0], argv, envp);
  }
  int e = errno;
  ssize_t ignored = write(error_fd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

}  // namespace

namespace {

// This process's ends of what the child is given, all close-on-exec (a
// child another thread starts meanwhile inherits none of them).
struct Ends {
  int socket[2] = {-1, -1};      // [0] ours, [1] the child's
  int output[2] = {-1, -1};      // [0] ours to read, [1] the child's stdout / stderr
  int exec_error[2] = {-1, -1};  // [0] ours to read, [1] the child's
  int null_fd = -1;

  void CloseAll() {
    for (int* fd :
         {&socket[0], &socket[1], &output[0], &output[1], &exec_error[0], &exec_error[1], &null_fd})
      CloseFd(fd);
  }
  void CloseChilds() {
    for (int* fd : {&socket[1], &output[1], &exec_error[1], &null_fd}) CloseFd(fd);
  }
};

Ends OpenEnds(const ChildProcess::Options& o, const std::string& what) {
  using Stream = ChildProcess::Stream;
  auto any = [&](Stream s) { return o.in == s || o.out == s || o.err == s; };
  Ends ends;
  auto give_up = [&](const char* call) {
    const int e = errno;
    ends.CloseAll();
    throw Error(ErrorCode::kEnvironment, what + ": " + call + ": " + strerror(e));
  };
  if ((o.socket_fd >= 0 || any(Stream::kSocket)) &&
      socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends.socket) != 0)
    give_up("socketpair");
  if (any(Stream::kCapture) && pipe2(ends.output, O_CLOEXEC) != 0) give_up("pipe");
  if (pipe2(ends.exec_error, O_CLOEXEC) != 0) give_up("pipe");
  if (any(Stream::kNull) && (ends.null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
    give_up("/dev/null");
  return ends;
}

Wiring WiringOf(const ChildProcess::Options& o, const Ends& ends) {
  Wiring w;
  const ChildProcess::Stream streams[3] = {o.in, o.out, o.err};
  for (int i = 0; i < 3; ++i) {
    switch (streams[i]) {
      case ChildProcess::Stream::kInherit:
        break;
      case ChildProcess::Stream::kNull:
        w.source[i] = ends.null_fd;
        break;
      case ChildProcess::Stream::kCapture:
        w.source[i] = ends.output[1];
        break;
      case ChildProcess::Stream::kSocket:
        w.source[i] = ends.socket[1];
        break;
    }
  }
  if (o.socket_fd >= 0) {
    w.socket_source = ends.socket[1];
    w.socket_target = o.socket_fd;
    w.highest_target = std::max(w.highest_target, o.socket_fd);
  }
  w.exec_error = ends.exec_error[1];
  return w;
}

// 0 once the child's exec succeeded (the pipe closed), else exec's errno.
int ExecErrno(int* exec_error_read) {
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(*exec_error_read, &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  CloseFd(exec_error_read);
  return n == static_cast<ssize_t>(sizeof exec_errno) ? exec_errno : 0;
}

}  // namespace

ChildProcess::ChildProcess(const Options& o, const std::string& what) {
  BEAST_CHECK(!o.argv.empty());
  Ends ends = OpenEnds(o, what);
  const Wiring wiring = WiringOf(o, ends);
  std::vector<std::string> args = o.argv, env = o.env;
  std::vector<char*> argv = Pointers(args), envp = Pointers(env);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) ExecChild(o, wiring, parent, argv.data(), env.empty() ? environ : envp.data());
  const int fork_errno = errno;
  ends.CloseChilds();
  if (pid < 0) {
    ends.CloseAll();
    throw Error(ErrorCode::kEnvironment, what + ": fork: " + strerror(fork_errno));
  }
  pid_ = pid;
  socket_ = ends.socket[0];
  output_ = ends.output[0];
  if (socket_ >= 0 && o.nonblocking_socket)
    fcntl(socket_, F_SETFL, fcntl(socket_, F_GETFL) | O_NONBLOCK);
  if (output_ >= 0) fcntl(output_, F_SETFL, fcntl(output_, F_GETFL) | O_NONBLOCK);
  if (const int e = ExecErrno(&ends.exec_error[0])) {
    Wait();
    CloseFd(&socket_);
    CloseFd(&output_);
    throw Error(ErrorCode::kEnvironment, what + ": " + strerror(e));
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
