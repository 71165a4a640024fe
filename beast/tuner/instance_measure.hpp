// Measures one rendered instance on an OpenCL device: build, a validation run
// on a poisoned output buffer, then timed repetitions. Every failure becomes
// a status with its message, never an exception.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "beast/bound_space.hpp"
#include "harness/opencl_context.hpp"
#include "harness/timing.hpp"
#include "problem_data.hpp"

namespace beast {

// The problem's buffers on the device, allocated once per problem.
struct DeviceProblem {
  harness::DeviceBuffer input0, input1, output;
  const ProblemData* data = nullptr;
};

DeviceProblem UploadProblem(harness::OpenCLContext& context, const ProblemData& data);

struct Outcome {
  std::string status = "ok";  // a results_db measurement status
  std::vector<double> samples_ms;
  std::optional<double> median_ms, spread, max_error, compile_ms;
  std::string error_text;
  std::string build_log;
  double benchmark_seconds = 0;
};

Outcome MeasureInstance(harness::OpenCLContext& context, const DeviceProblem& problem,
                        const std::string& source, const std::string& kernel_name,
                        const Instance& instance, const harness::BenchmarkPlan& plan);

}  // namespace beast
