// The tuning run (tuner.hpp): check the options, load the templates, resolve
// the device, then tune live on it or, for a device that is not present,
// compile-only; Ctrl-C and SIGTERM stop either cleanly.
#include "beast/tuner/tuner.hpp"

#include <atomic>
#include <chrono>

#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/tuner/compile_only_tuner.hpp"
#include "beast/tuner/interrupt_guard.hpp"
#include "beast/tuner/tune_on_device.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast {

void CheckTuneOptions(const TuneOptions& o) {
  if (o.templates.empty()) throw Error(ErrorCode::kBadArgument, "no template to tune (--template)");
  if (o.problems.empty()) throw Error(ErrorCode::kBadArgument, "no problem to tune (--problem)");
  if (!(o.timeout_seconds > 0))
    throw Error(ErrorCode::kBadArgument, "the timeout per config must be positive");
  if (o.time_budget_seconds < 0)
    throw Error(ErrorCode::kBadArgument, "the time budget must not be negative");
}

namespace {

std::vector<SpaceSpec> LoadSpecs(const std::string& templates_dir,
                                 const std::vector<std::string>& names) {
  std::vector<SpaceSpec> specs;
  for (const auto& name : names) specs.push_back(SpaceSpec::Load(templates_dir, name));
  return specs;
}

}  // namespace

TuneSummary Tune(const TuneOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  CheckTuneOptions(o);
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
          ? TuneOnDevice(o, specs, device, templates_dir, deadline, InterruptGuard::Stop())
          : TuneCompileOnly(o, specs, device, templates_dir, deadline, InterruptGuard::Stop());
  summary.job = o.job;
  summary.weights = o.weights;
  summary.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace beast
