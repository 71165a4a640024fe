// Renderer (renderer.hpp): one `python render.py` child per Renderer, spoken
// to in JSON lines over a Unix socket. A socket rather than pipes because
// send(MSG_NOSIGNAL) turns a dead child into an error code instead of a
// SIGPIPE that would kill the tuner.
#include "harness/renderer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "beast/error.hpp"
#include "beast/json.hpp"
#include "json_reply.hpp"

namespace beast::harness {
namespace {

constexpr const char* kInstallHint = ": run ./run to install";
constexpr size_t kStderrKeep = 4096;
constexpr int kExitGraceMs = 2000;  // for a child to leave after its input closes

void CloseFd(int* fd) {
  if (*fd >= 0) {
    ::close(*fd);
    *fd = -1;
  }
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.find_last_of('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return text.substr(start, end - start + 1);
}

// Child side of fork(): wires the socket to stdin/stdout, the stderr pipe to
// stderr and the exec-error pipe to fd 3, closes everything else, then execs.
// Only async-signal-safe calls: the parent may have other threads.
[[noreturn]] void ExecChild(int io, int err, int exec_err, char* const* argv, long max_fd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  // Lift the three descriptors above the targets first so no dup2 clobbers one.
  int io_hi = fcntl(io, F_DUPFD_CLOEXEC, 10);
  int err_hi = fcntl(err, F_DUPFD_CLOEXEC, 10);
  int exec_hi = fcntl(exec_err, F_DUPFD_CLOEXEC, 10);
  if (io_hi < 0 || err_hi < 0 || exec_hi < 0 || dup2(io_hi, 0) < 0 || dup2(io_hi, 1) < 0 ||
      dup2(err_hi, 2) < 0 || dup2(exec_hi, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0) {
    _exit(127);
  }
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
#endif
  {
    for (long fd = 4; fd < max_fd; ++fd) close(static_cast<int>(fd));
  }
  execvp(argv[0], argv);
  int e = errno;
  ssize_t ignored = write(3, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

}  // namespace

Renderer::Renderer(const std::string& python, const std::string& render_script,
                   const std::string& templates_dir)
    : python_(python), script_(render_script), templates_dir_(templates_dir) {
  if (!std::filesystem::is_regular_file(script_)) {
    throw Error(ErrorCode::kNotFound, "renderer script " + script_ + " does not exist");
  }
  if (!std::filesystem::is_directory(templates_dir_)) {
    throw Error(ErrorCode::kNotFound, "templates directory " + templates_dir_ + " does not exist");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Start();
}

Renderer::~Renderer() {
  std::lock_guard<std::mutex> lock(mutex_);
  Stop();
}

void Renderer::Start() {
  int sv[2], err_pipe[2], exec_pipe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw Error(ErrorCode::kEnvironment, std::string("renderer: socketpair: ") + strerror(errno));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    throw Error(ErrorCode::kEnvironment, std::string("renderer: pipe: ") + strerror(e));
  }
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    for (int fd : {sv[0], sv[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw Error(ErrorCode::kEnvironment, std::string("renderer: pipe: ") + strerror(e));
  }
  std::vector<std::string> args = {python_, "-B", script_, "--templates", templates_dir_};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > 65536) max_fd = 65536;

  pid_t pid = fork();
  if (pid == 0) ExecChild(sv[1], err_pipe[1], exec_pipe[1], argv.data(), max_fd);
  int fork_errno = errno;
  ::close(sv[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  if (pid < 0) {
    for (int fd : {sv[0], err_pipe[0], exec_pipe[0]}) ::close(fd);
    throw Error(ErrorCode::kEnvironment, std::string("renderer: fork: ") + strerror(fork_errno));
  }
  // The exec-error pipe closes on a successful exec, or carries exec's errno.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(sv[0]);
    ::close(err_pipe[0]);
    throw Error(ErrorCode::kEnvironment, "cannot start Python \"" + python_ +
                                             "\" for the renderer: " + strerror(exec_errno) +
                                             kInstallHint);
  }
  pid_ = pid;
  io_fd_ = sv[0];
  stderr_fd_ = err_pipe[0];
  fcntl(stderr_fd_, F_SETFL, fcntl(stderr_fd_, F_GETFL) | O_NONBLOCK);
  pending_.clear();
  stderr_tail_.clear();
  exit_status_ = -1;

  std::string reply;
  Exchange ex = Send("{\"ping\": true}\n");
  if (ex == Exchange::kOk) ex = ReadLine(&reply);
  if (ex != Exchange::kOk) {
    std::string diagnosis = ChildDiagnosis();
    Stop();
    throw Error(ErrorCode::kEnvironment, "the renderer (" + python_ + " " + script_ +
                                             ") did not start" + diagnosis + kInstallHint);
  }
  std::map<std::string, std::string> fields;
  std::string why;
  if (ParseJsonStringObject(reply, &fields, &why) && fields.count("pong")) {
    version_ = fields["pong"];
    return;
  }
  Stop();
  if (fields.count("fatal")) {
    throw Error(ErrorCode::kEnvironment, "renderer: " + fields["fatal"] + kInstallHint);
  }
  throw Error(ErrorCode::kInternal, "renderer: unexpected first reply: " + reply.substr(0, 200));
}

void Renderer::Stop() {
  if (pid_ < 0) return;
  CloseFd(&io_fd_);  // end of input: render.py returns
  if (exit_status_ < 0) {
    int status = 0;
    pid_t done = 0;
    for (int waited = 0; waited < kExitGraceMs; waited += 10) {
      done = waitpid(pid_, &status, WNOHANG);
      if (done != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == 0) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  CloseFd(&stderr_fd_);
  pid_ = -1;
  exit_status_ = -1;
  pending_.clear();
}

Renderer::Exchange Renderer::Send(const std::string& line) {
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = send(io_fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Exchange::kChildGone;  // EPIPE, ECONNRESET: the child is gone
    }
    sent += static_cast<size_t>(n);
  }
  return Exchange::kOk;
}

Renderer::Exchange Renderer::ReadLine(std::string* line) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(kReplyTimeoutSeconds);
  while (true) {
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      line->assign(pending_, 0, newline);
      pending_.erase(0, newline + 1);
      return Exchange::kOk;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Exchange::kTimeout;
    pollfd fds[2] = {{io_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};
    int r = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Exchange::kChildGone;
    }
    // Drained as it comes so a chatty child never blocks on a full pipe.
    if (fds[1].revents) DrainStderr();
    if (fds[0].revents) {
      char buf[65536];
      ssize_t n = recv(io_fd_, buf, sizeof buf, 0);
      if (n > 0) {
        pending_.append(buf, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        return Exchange::kChildGone;
      }
    }
  }
}

void Renderer::DrainStderr() {
  if (stderr_fd_ < 0) return;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(stderr_fd_, buf, sizeof buf);
    if (n > 0) {
      stderr_tail_.append(buf, static_cast<size_t>(n));
      if (stderr_tail_.size() > kStderrKeep) {
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrKeep);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) CloseFd(&stderr_fd_);  // the child closed it: it is leaving
    return;
  }
}

std::string Renderer::ChildDiagnosis() {
  std::string text;
  int status = 0;
  pid_t done = 0;
  for (int waited = 0; waited < kExitGraceMs && done == 0; waited += 10) {
    done = waitpid(pid_, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == pid_) {
    exit_status_ = status;
    if (WIFEXITED(status)) text = ": exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) text = ": killed by signal " + std::to_string(WTERMSIG(status));
  }
  DrainStderr();
  std::string last = LastLine(stderr_tail_);
  if (!last.empty()) text += ": " + last;
  return text;
}

std::string Renderer::Request(const std::string& line, const std::string& what) {
  for (int attempt = 0;; ++attempt) {
    if (pid_ < 0) Start();
    std::string reply;
    Exchange ex = Send(line);
    if (ex == Exchange::kOk) ex = ReadLine(&reply);
    if (ex == Exchange::kOk) return reply;
    std::string diagnosis = ex == Exchange::kTimeout ? "" : ChildDiagnosis();
    Stop();
    if (ex == Exchange::kTimeout) {
      throw Error(ErrorCode::kInternal, "the renderer did not answer within " +
                                            std::to_string(kReplyTimeoutSeconds) + " s rendering " +
                                            what + "; it was stopped");
    }
    if (attempt == 1) {
      throw Error(ErrorCode::kInternal, "the renderer died twice rendering " + what + diagnosis);
    }
  }
}

std::string Renderer::Render(const std::string& template_rel_path, const std::string& vars_json) {
  // One request per line: JSON allows raw line breaks only as white space.
  std::string vars = vars_json;
  for (char& c : vars) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (vars.find_first_not_of(" \t") == std::string::npos) vars = "{}";
  std::string line =
      "{\"template\": " + JsonString(template_rel_path) + ", \"vars\": " + vars + "}\n";

  std::lock_guard<std::mutex> lock(mutex_);
  std::string reply = Request(line, template_rel_path);
  std::map<std::string, std::string> fields;
  std::string why;
  if (!ParseJsonStringObject(reply, &fields, &why)) {
    throw Error(ErrorCode::kInternal, "renderer: malformed reply (" + why + ")");
  }
  if (auto it = fields.find("source"); it != fields.end()) return it->second;
  if (auto it = fields.find("error"); it != fields.end()) {
    throw Error(ErrorCode::kBadInput, it->second);
  }
  throw Error(ErrorCode::kInternal, "renderer: reply has neither source nor error");
}

std::string Renderer::Render(const std::string& template_rel_path,
                             const std::vector<std::pair<std::string, std::string>>& vars) {
  std::string json = "{";
  for (const auto& [name, value] : vars) {
    if (json.size() > 1) json += ", ";
    json += JsonString(name) + ": " + value;
  }
  return Render(template_rel_path, json + "}");
}

std::string Renderer::Version() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return version_;
}

pid_t Renderer::ChildPid() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pid_;
}

}  // namespace beast::harness
