// Build, validate and time one instance (instance_measure.hpp).
#include "beast/worker/instance_measure.hpp"

#include "beast/worker/measure_steps.hpp"
#include "beast/worker/staged_kernel.hpp"
#include "harness/opencl/opencl_kernel.hpp"

namespace beast {

DeviceProblem UploadProblem(harness::OpenClContext& context, const ProblemData& data) {
  DeviceProblem p;
  p.data = &data;
  p.input0 = UploadElements(context, data, data.input0);
  p.input1 = UploadElements(context, data, data.input1);
  p.output = context.Allocate(data.output_count * ElementBytes(data));
  if (!data.bias.empty()) p.bias = UploadElements(context, data, data.bias);
  return p;
}

std::vector<harness::OpenClKernelArg> DeviceProblem::KernelArgs() const {
  if (data && !data->bias.empty()) return {input0, input1, bias, output};
  return {input0, input1, output};
}

StagedKernel<harness::OpenClKernel>::Make StageMaker(
    harness::OpenClContext& context, const harness::OpenClProgram& program,
    const DeviceProblem& problem, const std::optional<harness::OpenClBuffer>& workspace) {
  const std::vector<harness::OpenClKernelArg> args = WithWorkspace<harness::OpenClKernelArg>(
      problem.KernelArgs(), workspace ? &*workspace : nullptr);
  return [&context, &program, args](const std::string& name) {
    return std::make_unique<harness::OpenClKernel>(context, program, name, args);
  };
}

Outcome MeasureInstance(harness::OpenClContext& context, const DeviceProblem& problem,
                        const std::string& source, const std::string& kernel_name,
                        const harness::LaunchGeometry& geometry,
                        const harness::LaunchSequence& stages, const harness::BenchmarkPlan& plan,
                        const OnBuilt& on_built, int winograd_tile,
                        const std::string& build_options) {
  Outcome out;
  harness::OpenClBuildResult build = context.Build(source, build_options);
  out.compile_ms = build.compile_ms;
  out.from_cache = build.from_cache;
  if (!build.ok) {
    out.status = Status::kCompileError;
    out.build_log = build.log;
    out.error_text = "the OpenCL build failed (build log kept)";
    return out;
  }
  std::optional<harness::OpenClBuffer> workspace;
  if (std::optional<std::string> why = AllocateWorkspace(context, stages, &workspace)) {
    out.status = Status::kRuntimeError;
    out.error_text = *why;
    return out;
  }
  StagedKernel<harness::OpenClKernel> runner(
      kernel_name, stages, StageMaker(context, build.program, problem, workspace));
  if (!runner.ok()) {
    out.status = Status::kRuntimeError;
    out.error_text = runner.message();
    return out;
  }
  out.resources.shared_bytes = runner.main().resources().local_mem_bytes;
  out.resources.stack_bytes = runner.main().resources().private_mem_bytes;
  if (on_built) {
    if (std::optional<std::string> why = on_built(build.compile_ms, out.resources)) {
      out.status = Status::kPrunedAfterCompile;
      out.error_text = *why;
      return out;
    }
  }
  KernelCalls calls;
  calls.poison_output = [&] { context.Fill(problem.output, 0xFF); };
  calls.launch = [&] {
    if (plan.flush_cache) context.FlushCache();
    return runner.Launch(geometry);
  };
  if (runner.has_prepare()) calls.prepare = [&] { return runner.Prepare(); };
  calls.read_output = [&](void* host) {
    context.Read(problem.output, host, problem.data->output_count * ElementBytes(*problem.data));
  };
  ValidateAndTime(calls, *problem.data, plan, &out, winograd_tile);
  return out;
}

}  // namespace beast
