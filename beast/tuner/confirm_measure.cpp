// Interleaved re-measurement of a pair's top configs (confirm_measure.hpp).
#include "confirm_measure.hpp"

#include <chrono>
#include <memory>

#include "harness/kernel_runner.hpp"

namespace beast {

std::vector<ConfirmResult> ConfirmInstances(harness::OpenCLContext& context,
                                            const DeviceProblem& problem,
                                            const std::vector<ConfirmCandidate>& candidates,
                                            const harness::BenchmarkPlan& plan) {
  std::vector<ConfirmResult> results(candidates.size());
  std::vector<std::unique_ptr<harness::KernelRunner>> runners(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    // The options are MeasureInstance's, so the program comes from the cache.
    harness::BuildResult build = context.Build(candidates[i].source, "");
    if (!build.ok) {
      results[i].status = "compile_error";
      results[i].error_text = "the OpenCL build failed: " + build.log;
      continue;
    }
    runners[i] = std::make_unique<harness::KernelRunner>(
        context, build.program, candidates[i].kernel_name, problem.KernelArgs());
    if (!runners[i]->ok()) {
      results[i].status = "runtime_error";
      results[i].error_text = runners[i]->message();
      runners[i].reset();
    }
  }
  // One launch of candidate i; false (and i stops) when it fails.
  auto launch = [&](size_t i, bool timed) {
    harness::LaunchResult r = runners[i]->Launch(candidates[i].geometry);
    if (!r.ok()) {
      results[i].status = "runtime_error";
      results[i].error_text = r.message;
      runners[i].reset();
      return;
    }
    if (timed) results[i].samples_ms.push_back(r.kernel_ms);
  };
  auto live = [&] {
    size_t n = 0;
    for (const auto& r : runners) n += r != nullptr;
    return n;
  };
  for (int w = 0; w < plan.warmup; ++w) {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (runners[i]) launch(i, false);
  }
  const auto start = std::chrono::steady_clock::now();
  for (int round = 1; round <= plan.max_reps && live() > 0; ++round) {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (runners[i]) launch(i, true);
    if (round < plan.min_reps) continue;
    bool stable = true;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (runners[i])
        stable =
            stable && harness::MedianRelativeHalfWidth(results[i].samples_ms) <= plan.target_rel_ci;
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stable || elapsed >= plan.max_seconds * static_cast<double>(live())) break;
  }
  return results;
}

}  // namespace beast
