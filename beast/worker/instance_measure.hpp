// Measures one rendered instance on an OpenCL device: build, a validation run
// on a poisoned output buffer, then timed repetitions. Every failure of the
// kernel becomes a status with its message; only a broken device (a lost
// context: a transfer that fails) throws beast::Error. Runs in the device
// worker process (worker_main.cpp), where a kernel that crashes or hangs
// takes nothing but the worker with it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "beast/core/status.hpp"
#include "beast/space/compiled_resources.hpp"
#include "beast/worker/problem_data.hpp"
#include "beast/worker/staged_kernel.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_kernel.hpp"

namespace beast {

// The problem's buffers on the device, allocated once per problem.
struct DeviceProblem {
  harness::OpenClBuffer input0, input1, output;
  harness::OpenClBuffer bias;  // allocated only when the problem has a bias
  // The kernel arguments in beast's contract: (x, w, [b,] y) or (A, B, C).
  std::vector<harness::OpenClKernelArg> KernelArgs() const;
  const ProblemData* data = nullptr;
};

DeviceProblem UploadProblem(harness::OpenClContext& context, const ProblemData& data);

struct Outcome {
  Status status = Status::kOk;
  std::vector<double> samples_ms;
  std::optional<double> median_ms, spread, max_error, compile_ms;
  // The device time of the config's prepare stages (the weights' transform,
  // run once per weight buffer and not part of median_ms); unset when it
  // has none.
  std::optional<double> prepare_ms;
  std::string error_text;
  std::string build_log;
  // The built kernel's local and private memory (OpenCL reports no registers
  // or spills); unset when nothing was built.
  CompiledResources resources;
  // The program came from the binary cache (compile_ms is then the time the
  // build that made the entry took, not time spent now).
  bool from_cache = false;
  // Wall clock of the validation launch: one run, plus on PoCL the code
  // generation it triggers for the work-group size (a JIT as long as the
  // build or longer).
  double first_launch_seconds = 0;
  double benchmark_seconds = 0;  // wall clock of the timed runs (warm-up included)
  // Set by the tuner's side (WorkerClient): 2 when the device worker died
  // under the config once and it was measured again in a fresh one.
  int attempts = 1;
};

// Called once the build succeeded and the kernel exists, before it first
// runs, with its resources (the worker tells the tuner, whose time limit for
// running the kernel starts then). A reason returned means a post-compile
// constraint rejects the kernel: it is recorded pruned_after_compile, not run.
using OnBuilt = std::function<std::optional<std::string>(double compile_ms,
                                                         const CompiledResources& resources)>;

// Builds `source` (with clBuildProgram `build_options`: the tuner passes
// none), runs `stages` then `kernel_name` (one launch, timed whole),
// validates the output and times it.
Outcome MeasureInstance(harness::OpenClContext& context, const DeviceProblem& problem,
                        const std::string& source, const std::string& kernel_name,
                        const harness::LaunchGeometry& geometry,
                        const harness::LaunchSequence& stages, const harness::BenchmarkPlan& plan,
                        const OnBuilt& on_built = nullptr, int winograd_tile = 0,
                        const std::string& build_options = "");

// Makes the kernels of a program bound to the problem's buffers and the
// workspace (StagedKernel).
StagedKernel<harness::OpenClKernel>::Make StageMaker(
    harness::OpenClContext& context, const harness::OpenClProgram& program,
    const DeviceProblem& problem, const std::optional<harness::OpenClBuffer>& workspace);

}  // namespace beast
