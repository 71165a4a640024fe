// The tuner's handle on one device worker process (worker_process.hpp).
#include "worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
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
#include <vector>

#include "beast/error.hpp"

namespace beast {
namespace {

constexpr size_t kStderrKeep = 4096;
constexpr auto kExitGrace =
    std::chrono::seconds(2);       // for a worker to leave after its socket closes
constexpr int kPollSliceMs = 100;  // how often a wait looks at the stop flag

void CloseFd(int* fd) {
  if (*fd >= 0) {
    ::close(*fd);
    *fd = -1;
  }
}

// The child between fork and exec: only async-signal-safe calls, since the
// tuner has other threads (the OpenCL runtime's, from listing devices).
[[noreturn]] void ExecWorker(int sock, int err, int exec_err, pid_t parent, char* const* argv) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Die with the tuner, even one killed with SIGKILL; if it died before this
  // line ran, the parent is already someone else.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
  signal(SIGINT, SIG_IGN);  // Ctrl-C is the tuner's to handle; it kills the worker itself
  signal(SIGPIPE, SIG_DFL);
  // A kernel that faults must not leave a core file the size of its buffers.
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  // Lift the descriptors above the targets first so no dup2 clobbers one.
  int sock_hi = fcntl(sock, F_DUPFD_CLOEXEC, 10);
  int err_hi = fcntl(err, F_DUPFD_CLOEXEC, 10);
  int exec_hi = fcntl(exec_err, F_DUPFD_CLOEXEC, 10);
  if (null_fd < 0 || sock_hi < 0 || err_hi < 0 || exec_hi < 0 || dup2(null_fd, 0) < 0 ||
      dup2(err_hi, 1) < 0 || dup2(err_hi, 2) < 0 || dup2(sock_hi, 3) < 0 || dup2(exec_hi, 4) < 0 ||
      fcntl(4, F_SETFD, FD_CLOEXEC) < 0) {
    _exit(127);
  }
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 5u, ~0u, 0u) != 0)
#endif
  {
    for (int fd = 5; fd < 65536; ++fd) close(fd);
  }
  execv(argv[0], argv);
  int e = errno;
  ssize_t ignored = write(4, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

}  // namespace

WorkerProcess::WorkerProcess(const std::string& executable, int device_index,
                             const std::vector<std::string>& extra_args, const std::string& verb) {
  int sv[2], err_pipe[2], exec_pipe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw Error(ErrorCode::kEnvironment,
                std::string("device worker: socketpair: ") + strerror(errno));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0 || pipe2(exec_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    throw Error(ErrorCode::kEnvironment, std::string("device worker: pipe: ") + strerror(e));
  }
  std::vector<std::string> args = {executable, verb, "--device-index", std::to_string(device_index),
                                   "--fd",     "3"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) ExecWorker(sv[1], err_pipe[1], exec_pipe[1], parent, argv.data());
  int fork_errno = errno;
  for (int fd : {sv[1], err_pipe[1], exec_pipe[1]}) ::close(fd);
  if (pid < 0) {
    for (int fd : {sv[0], err_pipe[0], exec_pipe[0]}) ::close(fd);
    throw Error(ErrorCode::kEnvironment,
                std::string("device worker: fork: ") + strerror(fork_errno));
  }
  pid_ = pid;
  fd_ = sv[0];
  stderr_fd_ = err_pipe[0];
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  fcntl(stderr_fd_, F_SETFL, fcntl(stderr_fd_, F_GETFL) | O_NONBLOCK);
  // The exec-error pipe closes on a successful exec, or carries exec's errno.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    Reap();
    CloseFd(&fd_);
    CloseFd(&stderr_fd_);
    throw Error(ErrorCode::kEnvironment,
                "cannot start the device worker " + executable + ": " + strerror(exec_errno));
  }
}

WorkerProcess::~WorkerProcess() {
  CloseFd(&fd_);  // end of stream: an idle worker returns from its loop
  if (!reaped_) Reap();
  CloseFd(&stderr_fd_);
}

bool WorkerProcess::Send(const std::string& payload, Clock::time_point deadline) {
  return fd_ >= 0 && WriteFrame(fd_, payload, deadline);
}

WorkerProcess::Wait WorkerProcess::Receive(std::string* payload, Clock::time_point deadline,
                                           const std::atomic<bool>* stop) {
  char chunk[65536];
  while (true) {
    if (frames_.Next(payload)) return Wait::kFrame;
    if (fd_ < 0) return Wait::kGone;
    if (stop && *stop) return Wait::kStopped;
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Wait::kDeadline;
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
    int ready = ::poll(fds, stderr_fd_ >= 0 ? 2 : 1,
                       static_cast<int>(std::min<long long>(left, kPollSliceMs)));
    if (ready <= 0) continue;  // timeout or EINTR (Ctrl-C): look at the flags again
    if (stderr_fd_ >= 0 && fds[1].revents) DrainStderr();
    if (!fds[0].revents) continue;
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n > 0) {
      frames_.Append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      // The worker closed its end: it is leaving or dead. Complete frames
      // were handed out above, so what is left is a frame cut short.
      CloseFd(&fd_);
      frames_.Clear();
      return Wait::kGone;
    }
  }
}

void WorkerProcess::DrainStderr() {
  char chunk[4096];
  while (stderr_fd_ >= 0) {
    ssize_t n = ::read(stderr_fd_, chunk, sizeof chunk);
    if (n > 0) {
      stderr_tail_.append(chunk, static_cast<size_t>(n));
      if (stderr_tail_.size() > kStderrKeep)
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrKeep);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) CloseFd(&stderr_fd_);
    return;
  }
}

void WorkerProcess::Kill() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  CloseFd(&fd_);
  DrainStderr();
}

std::string WorkerProcess::Reap() {
  if (!reaped_) {
    auto give_up = Clock::now() + kExitGrace;
    pid_t done = 0;
    while ((done = waitpid(pid_, &status_, WNOHANG)) == 0 && Clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (done == 0) {
      ::kill(pid_, SIGKILL);
      while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
    }
    reaped_ = true;
    DrainStderr();
  }
  return DescribeStatus(status_);
}

std::string WorkerProcess::DescribeStatus(int status) const {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

std::string WorkerProcess::LastStderrLine() const {
  size_t end = stderr_tail_.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t start = stderr_tail_.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return stderr_tail_.substr(start, end - start + 1);
}

}  // namespace beast
