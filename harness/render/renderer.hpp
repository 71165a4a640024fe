// Renderer: turns a kernel template and its variables into source text by
// talking to one long-lived `python render.py` child process over a socket
// (JSON lines; protocol in harness/render.py), so Jinja2 starts once per run.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "beast/core/child_process.hpp"
#include "beast/core/error.hpp"

namespace beast::harness {

// A render that ran past its time limit (a template whose Jinja2 loops never
// end, say): the child was killed, and the next Render starts a fresh one.
class RenderTimeout : public Error {
 public:
  explicit RenderTimeout(const std::string& message) : Error(ErrorCode::kInternal, message) {}
};

// A render given up because the run was asked to stop (the child was killed).
class RenderInterrupted : public Error {
 public:
  RenderInterrupted() : Error(ErrorCode::kInternal, "rendering was interrupted") {}
};

class Renderer {
 public:
  // Starts `python -B render_script --templates templates_dir` and checks that
  // it answers. Throws Error(kEnvironment, "...: run ./run to install") when
  // the interpreter cannot be started or lacks Jinja2, or the templates
  // directory does not exist.
  Renderer(const std::string& python, const std::string& render_script,
           const std::string& templates_dir);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Renders template_rel_path (relative to the templates directory) with
  // vars, one JSON object {"MWG": 32, "BACKEND": "opencl", ...}.
  // A template that cannot be rendered (undefined variable, syntax error,
  // unknown template, malformed variables) throws Error(kBadInput) with the
  // renderer's one-line message naming the template file and line. A child
  // that died is restarted once; if it dies again, or does not answer within
  // the time limit, throws RenderTimeout; when *stop (SetLimits) turns true
  // first, RenderInterrupted, within 100 ms. Thread-safe.
  std::string Render(const std::string& template_rel_path, const nlohmann::ordered_json& vars);
  // Variables as text would become one JSON string, not an object: parse them.
  std::string Render(const std::string& template_rel_path, const char* vars) = delete;
  std::string Render(const std::string& template_rel_path, const std::string& vars) = delete;

  // "jinja2 <version>", as the child reported at start.
  std::string Version() const;
  // Process id of the current child, -1 when none runs (diagnostics, tests).
  pid_t ChildPid() const;

  // Seconds Render waits for a reply before it gives the child up as hung,
  // unless SetLimits says otherwise.
  static constexpr int kReplyTimeoutSeconds = 120;

  // A tuning run's limits: a render longer than `timeout_seconds` is given
  // up (the run's per-config limit), and one in progress when *stop turns
  // true returns at once. `stop` must outlive the renderer's use.
  void SetLimits(double timeout_seconds, const std::atomic<bool>* stop);

 private:
  enum class Exchange { kOk, kChildGone, kTimeout, kStopped };

  void Start();  // throws Error(kEnvironment)
  void Stop();
  Exchange Send(const std::string& line);
  // Waits up to `seconds` for the next line.
  Exchange ReadLine(std::string* line, double seconds);
  std::string Request(const std::string& line, const std::string& what);
  std::string ChildDiagnosis();  // the child's exit status and last stderr line

  std::string python_;
  std::string script_;
  std::string templates_dir_;
  std::string version_;
  mutable std::mutex mutex_;
  // The running child, if any: its socket is its stdin and stdout.
  std::unique_ptr<ChildProcess> child_;
  std::string pending_;  // bytes read past the last reply line
  double timeout_seconds_ = kReplyTimeoutSeconds;
  const std::atomic<bool>* stop_ = nullptr;
};

}  // namespace beast::harness
