// Renderer (renderer.hpp): one `python render.py` child per Renderer, spoken
// to in JSON lines over a Unix socket. A socket rather than pipes because
// send(MSG_NOSIGNAL) turns a dead child into an error code instead of a
// SIGPIPE that would kill the tuner.
#include "harness/render/renderer.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "beast/core/child_process.hpp"
#include "beast/core/error.hpp"
#include "beast/core/stopped_time.hpp"

namespace beast::harness {
namespace {

constexpr const char* kInstallHint = ": run ./run to install";
constexpr int kExitGraceMs = 2000;  // for a child to leave after its input closes

// A reply of render.py: one JSON object of strings (anything else reads as
// an object with no fields).
nlohmann::json ParseReply(const std::string& reply) {
  nlohmann::json fields = nlohmann::json::parse(reply, nullptr, /*allow_exceptions=*/false);
  return fields.is_object() ? fields : nlohmann::json::object();
}

// The string field `key` of a reply; nullptr when it has none.
const std::string* StringField(const nlohmann::json& fields, const char* key) {
  auto it = fields.find(key);
  return it != fields.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
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
  ChildProcess::Options o;
  o.argv = {python_, "-B", script_, "--templates", templates_dir_};
  o.search_path = true;
  o.in = ChildProcess::Stream::kSocket;
  o.out = ChildProcess::Stream::kSocket;
  o.err = ChildProcess::Stream::kCapture;
  try {
    child_ = std::make_unique<ChildProcess>(
        o, "cannot start Python \"" + python_ + "\" for the renderer");
  } catch (const Error& e) {
    throw Error(ErrorCode::kEnvironment, e.what() + std::string(kInstallHint));
  }
  pending_.clear();

  std::string reply;
  Exchange ex = Send("{\"ping\": true}\n");
  // Starting Python and Jinja2 is not a render: the run's per-config limit
  // does not apply to it.
  if (ex == Exchange::kOk) ex = ReadLine(&reply, kReplyTimeoutSeconds);
  if (ex == Exchange::kStopped) {
    child_->Kill();
    child_.reset();
    throw RenderInterrupted();
  }
  if (ex != Exchange::kOk) {
    std::string diagnosis = ChildDiagnosis();
    // Ctrl-C reaches the renderer too (it dies with the run's process group,
    // so a render in flight never outlives a verb): one that died of it as it
    // started was interrupted, not badly installed.
    const bool interrupted = child_ && child_->reaped() && WIFSIGNALED(child_->wait_status()) &&
                             WTERMSIG(child_->wait_status()) == SIGINT;
    Stop();
    if (interrupted) throw RenderInterrupted();
    throw Error(ErrorCode::kEnvironment, "the renderer (" + python_ + " " + script_ +
                                             ") did not start" + diagnosis + kInstallHint);
  }
  const nlohmann::json fields = ParseReply(reply);
  if (const std::string* pong = StringField(fields, "pong")) {
    version_ = *pong;
    return;
  }
  Stop();
  if (const std::string* fatal = StringField(fields, "fatal")) {
    throw Error(ErrorCode::kEnvironment, "renderer: " + *fatal + kInstallHint);
  }
  throw Error(ErrorCode::kInternal, "renderer: unexpected first reply: " + reply.substr(0, 200));
}

void Renderer::Stop() {
  if (!child_) return;
  child_->CloseSocket();  // end of input: render.py returns
  child_.reset();         // reaped within its grace period, else SIGKILLed
  pending_.clear();
}

Renderer::Exchange Renderer::Send(const std::string& line) {
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = send(child_->socket(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Exchange::kChildGone;  // EPIPE, ECONNRESET: the child is gone
    }
    sent += static_cast<size_t>(n);
  }
  return Exchange::kOk;
}

Renderer::Exchange Renderer::ReadLine(std::string* line, double seconds) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(seconds));
  StoppedTime watch;  // time stood stopped (Ctrl-Z) counts against no render
  while (true) {
    deadline += watch.Stopped();
    if (stop_ && *stop_) return Exchange::kStopped;
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      line->assign(pending_, 0, newline);
      pending_.erase(0, newline + 1);
      return Exchange::kOk;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Exchange::kTimeout;
    pollfd fds[2] = {{child_->socket(), POLLIN, 0}, {child_->output(), POLLIN, 0}};
    // Short slices: a stop is seen within 100 ms.
    const int slice = static_cast<int>(std::min<int64_t>(left.count(), 100));
    watch.Waiting(std::chrono::milliseconds(slice));
    int r = poll(fds, 2, slice);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Exchange::kChildGone;
    }
    // Drained as it comes so a chatty child never blocks on a full pipe.
    if (fds[1].revents) child_->DrainOutput();
    if (fds[0].revents) {
      char buf[65536];
      ssize_t n = recv(child_->socket(), buf, sizeof buf, 0);
      if (n > 0) {
        pending_.append(buf, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        return Exchange::kChildGone;
      }
    }
  }
}

std::string Renderer::ChildDiagnosis() {
  std::string text;
  for (int waited = 0; waited < kExitGraceMs && !child_->TryReap(); waited += 10)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (child_->reaped()) {
    const int status = child_->wait_status();
    if (WIFEXITED(status)) text = ": exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) text = ": killed by signal " + std::to_string(WTERMSIG(status));
  }
  child_->DrainOutput();
  std::string last = child_->LastOutputLine();
  if (!last.empty()) text += ": " + last;
  return text;
}

std::string Renderer::Request(const std::string& line, const std::string& what) {
  for (int attempt = 0;; ++attempt) {
    if (!child_) Start();
    std::string reply;
    Exchange ex = Send(line);
    if (ex == Exchange::kOk) ex = ReadLine(&reply, timeout_seconds_);
    if (ex == Exchange::kOk) return reply;
    if (ex == Exchange::kTimeout || ex == Exchange::kStopped) {
      // A child busy in an endless loop reads no end of input: killed now.
      child_->Kill();
      child_.reset();
      pending_.clear();
      if (ex == Exchange::kStopped) throw RenderInterrupted();
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", timeout_seconds_);
      throw RenderTimeout("the template did not render within " + std::string(seconds) + " s (" +
                          what + "); the renderer was stopped");
    }
    std::string diagnosis = ChildDiagnosis();
    Stop();
    if (attempt == 1) {
      throw Error(ErrorCode::kInternal, "the renderer died twice rendering " + what + diagnosis);
    }
  }
}

std::string Renderer::Render(const std::string& template_rel_path,
                             const nlohmann::ordered_json& vars) {
  // One request per line: dump() writes no raw line breaks.
  const nlohmann::ordered_json request = {{"template", template_rel_path}, {"vars", vars}};
  const std::string line = request.dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  const nlohmann::json fields = ParseReply(Request(line, template_rel_path));
  if (const std::string* source = StringField(fields, "source")) return *source;
  if (const std::string* error = StringField(fields, "error"))
    throw Error(ErrorCode::kBadInput, *error);
  throw Error(ErrorCode::kInternal, "renderer: reply has neither source nor error");
}

void Renderer::SetLimits(double timeout_seconds, const std::atomic<bool>* stop) {
  std::lock_guard<std::mutex> lock(mutex_);
  timeout_seconds_ = timeout_seconds;
  stop_ = stop;
}

std::string Renderer::Version() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return version_;
}

pid_t Renderer::ChildPid() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return child_ ? child_->pid() : -1;
}

}  // namespace beast::harness
