// Interleaved re-measurement of a pair's top configs (confirm_measure.hpp).
#include "beast/worker/confirm_measure.hpp"

#include <functional>
#include <memory>

#include "beast/worker/instance_measure.hpp"
#include "beast/worker/measure_steps.hpp"
#include "harness/opencl/opencl_kernel.hpp"

namespace beast {

std::vector<ConfirmResult> ConfirmInstances(harness::OpenClContext& context,
                                            const DeviceProblem& problem,
                                            const std::vector<ConfirmCandidate>& candidates,
                                            const harness::BenchmarkPlan& plan) {
  std::vector<ConfirmResult> results(candidates.size());
  std::vector<std::unique_ptr<StagedKernel<harness::OpenClKernel>>> runners(candidates.size());
  std::vector<std::optional<harness::OpenClBuffer>> workspaces(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    // The options are MeasureInstance's, so the program comes from the cache.
    harness::OpenClBuildResult build = context.Build(candidates[i].source, "");
    if (!build.ok) {
      results[i].status = Status::kCompileError;
      results[i].error_text = "the OpenCL build failed: " + build.log;
      continue;
    }
    if (std::optional<std::string> why =
            AllocateWorkspace(context, candidates[i].stages, &workspaces[i])) {
      results[i].status = Status::kRuntimeError;
      results[i].error_text = *why;
      continue;
    }
    runners[i] = std::make_unique<StagedKernel<harness::OpenClKernel>>(
        candidates[i].kernel_name, candidates[i].stages,
        StageMaker(context, build.program, problem, workspaces[i]));
    if (!runners[i]->ok()) {
      results[i].status = Status::kRuntimeError;
      results[i].error_text = runners[i]->message();
      runners[i].reset();
    } else if (!PrepareForRounds(*runners[i], &results[i])) {
      runners[i].reset();
    }
  }
  std::vector<std::function<harness::LaunchResult()>> launches(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!runners[i]) continue;
    launches[i] = [&, i] {
      if (plan.flush_cache) context.FlushCache();
      return runners[i]->Launch(candidates[i].geometry);
    };
  }
  auto device_works = [&] {
    try {
      float probe = 0;
      context.Read(problem.output, &probe, sizeof probe);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  InterleavedRounds(launches, plan, device_works, &results);
  return results;
}

}  // namespace beast
