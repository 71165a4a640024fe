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
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "beast/core/child_process.hpp"
#include "beast/core/error.hpp"
#include "beast/core/json.hpp"
#include "harness/render/json_reply.hpp"

namespace beast::harness {
namespace {

constexpr const char* kInstallHint = ": run ./run to install";
constexpr int kExitGraceMs = 2000;  // for a child to leave after its input closes

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
    child_ = std::make_unique<ChildProcess>(o, "cannot start Python \"" + python_ + "\" for the renderer");
  } catch (const Error& e) {
    throw Error(ErrorCode::kEnvironment, e.what() + std::string(kInstallHint));
  }
  pending_.clear();

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
    pollfd fds[2] = {{child_->socket(), POLLIN, 0}, {child_->output(), POLLIN, 0}};
    int r = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
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
  return child_ ? child_->pid() : -1;
}

}  // namespace beast::harness
