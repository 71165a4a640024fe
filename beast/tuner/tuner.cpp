// The tuning run (tuner.hpp): check the options, load the templates, resolve
// the device, then tune live on it or, for a device that is not present,
// compile-only; Ctrl-C and SIGTERM stop either cleanly.
#include "beast/tuner/tuner.hpp"

#include <signal.h>

#include <atomic>
#include <chrono>

#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/tuner/compile_only_tuner.hpp"
#include "beast/tuner/tune_on_device.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast {
namespace {

std::atomic<bool> g_interrupted{false};

// Ctrl-C, SIGTERM and SIGHUP (the terminal went away) stop the run: every
// wait returns within a moment, the workers are reaped, the run is recorded
// interrupted and the summary printed. A second signal changes nothing: the
// stop it asks for is already under way, and dying now would leave the run
// marked running with no summary.
void OnInterrupt(int) { g_interrupted = true; }

// Ctrl-C, SIGTERM and SIGHUP stop the run cleanly; the previous handlers come back
// when it ends, unless it was stopped. No SA_RESTART: a wait in progress
// returns at once.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    struct sigaction action = {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
    sigaction(SIGHUP, &action, &previous_hup_);
  }
  ~InterruptGuard() {
    // A stop under way keeps the handler until the process ends: the caller
    // still prints the summary, and a second Ctrl-C arriving now must not
    // kill it first.
    if (g_interrupted) return;
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
    sigaction(SIGHUP, &previous_hup_, nullptr);
  }

 private:
  struct sigaction previous_int_ = {}, previous_term_ = {}, previous_hup_ = {};
};

void CheckOptions(const TuneOptions& o) {
  if (o.templates.empty()) throw Error(ErrorCode::kBadArgument, "no template to tune (--template)");
  if (o.problems.empty()) throw Error(ErrorCode::kBadArgument, "no problem to tune (--problem)");
  if (!(o.timeout_seconds > 0))
    throw Error(ErrorCode::kBadArgument, "the timeout per config must be positive");
  if (o.time_budget_seconds < 0)
    throw Error(ErrorCode::kBadArgument, "the time budget must not be negative");
}

std::vector<SpaceSpec> LoadSpecs(const std::string& templates_dir,
                                 const std::vector<std::string>& names) {
  std::vector<SpaceSpec> specs;
  for (const auto& name : names) specs.push_back(SpaceSpec::Load(templates_dir, name));
  return specs;
}

}  // namespace

TuneSummary Tune(const TuneOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  CheckOptions(o);
  const std::string templates_dir =
      o.templates_dir.empty() ? Paths::Default().templates_dir : o.templates_dir;
  const std::vector<SpaceSpec> specs = LoadSpecs(templates_dir, o.templates);
  const DeviceInfo device = ResolveDevice(o.device);
  InterruptGuard guard;
  // cuda:sm_XX names a device that is not present: compile only.
  // A time budget ends the measuring (winners are still confirmed after it).
  const auto deadline =
      o.time_budget_seconds > 0
          ? start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(o.time_budget_seconds))
          : std::chrono::steady_clock::time_point::max();
  TuneSummary summary =
      o.device.arch.empty()
          ? TuneOnDevice(o, specs, device, templates_dir, deadline, g_interrupted)
          : TuneCompileOnly(o, specs, device, templates_dir, deadline, g_interrupted);
  summary.job = o.job;
  summary.weights = o.weights;
  summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace beast
