// Build, validate and time one instance (instance_measure.hpp).
#include "instance_measure.hpp"

#include <chrono>
#include <cstdio>

#include "harness/kernel_runner.hpp"
#include "harness/validation.hpp"

namespace beast {

DeviceProblem UploadProblem(harness::OpenCLContext& context, const ProblemData& data) {
  DeviceProblem p;
  p.data = &data;
  p.input0 = context.Allocate(data.input0.size() * sizeof(float));
  p.input1 = context.Allocate(data.input1.size() * sizeof(float));
  p.output = context.Allocate(data.output_count * sizeof(float));
  context.Write(p.input0, data.input0.data(), data.input0.size() * sizeof(float));
  context.Write(p.input1, data.input1.data(), data.input1.size() * sizeof(float));
  if (!data.bias.empty()) {
    p.bias = context.Allocate(data.bias.size() * sizeof(float));
    context.Write(p.bias, data.bias.data(), data.bias.size() * sizeof(float));
  }
  return p;
}

std::vector<harness::KernelArg> DeviceProblem::KernelArgs() const {
  if (data && !data->bias.empty()) return {input0, input1, bias, output};
  return {input0, input1, output};
}

Outcome MeasureInstance(harness::OpenCLContext& context, const DeviceProblem& problem,
                        const std::string& source, const std::string& kernel_name,
                        const harness::LaunchGeometry& geometry, const harness::BenchmarkPlan& plan,
                        const OnBuilt& on_built) {
  Outcome out;
  harness::BuildResult build = context.Build(source, "");
  out.compile_ms = build.compile_ms;
  out.from_cache = build.from_cache;
  if (!build.ok) {
    out.status = "compile_error";
    out.build_log = build.log;
    out.error_text = "the OpenCL build failed (build log kept)";
    return out;
  }
  harness::KernelRunner runner(context, build.program, kernel_name, problem.KernelArgs());
  if (!runner.ok()) {
    out.status = "runtime_error";
    out.error_text = runner.message();
    return out;
  }
  out.resources.shared_bytes = runner.resources().local_mem_bytes;
  out.resources.stack_bytes = runner.resources().private_mem_bytes;
  if (on_built) {
    if (std::optional<std::string> why = on_built(build.compile_ms, out.resources)) {
      out.status = "pruned_after_compile";
      out.error_text = *why;
      return out;
    }
  }
  // Poison the output (0xFF bytes are NaN) so an element the kernel never
  // writes fails validation instead of passing on a stale value.
  context.Fill(problem.output, 0xFF);
  auto first_start = std::chrono::steady_clock::now();
  harness::LaunchResult first = runner.Launch(geometry);
  out.first_launch_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - first_start).count();
  if (!first.ok()) {
    out.status = "runtime_error";
    out.error_text = first.message;
    return out;
  }
  const ProblemData& data = *problem.data;
  std::vector<float> y(data.output_count);
  context.Read(problem.output, y.data(), y.size() * sizeof(float));
  harness::ValidationResult v = harness::Validate(
      y.data(), data.reference.data(), data.abs_reference.data(), y.size(), data.reduction_length);
  out.max_error = v.max_error;
  if (!v.ok) {
    out.status = "wrong_result";
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%lld of %zu outputs wrong (%lld not finite); worst at %lld: got %g, expected %g",
                  (long long)v.fail_count, y.size(), (long long)v.nan_count,
                  (long long)v.worst_index, v.worst_index >= 0 ? y[v.worst_index] : 0.0,
                  v.worst_index >= 0 ? data.reference[v.worst_index] : 0.0);
    out.error_text = buf;
    return out;
  }
  std::string failure;
  auto start = std::chrono::steady_clock::now();
  out.samples_ms = harness::Benchmark(
      [&]() -> std::optional<double> {
        harness::LaunchResult r = runner.Launch(geometry);
        if (!r.ok()) {
          failure = r.message;
          return std::nullopt;
        }
        return r.kernel_ms;
      },
      plan, nullptr);
  out.benchmark_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!failure.empty()) {
    out.status = "runtime_error";
    out.error_text = failure;
    return out;
  }
  harness::SampleStats stats = harness::Summarize(out.samples_ms);
  out.median_ms = stats.median;
  out.spread = stats.spread;
  return out;
}

}  // namespace beast
