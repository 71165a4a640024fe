// Vendor-library baselines in the device worker: runs CLBlast on the very
// buffers, inputs and reference a problem's kernels are measured with
// (problem_data.hpp, instance_measure.hpp), so the two times compare like for
// like. The worker calls it for a kBaseline request; a crash inside the
// library takes only the worker with it, like a crashing kernel.
#pragma once

#include "beast/problem/problem.hpp"
#include "beast/worker/instance_measure.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/clblast_baseline.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast {

// The libraries a run can measure baselines with: CLBlast on OpenCL devices;
// cuBLAS (GEMM) and cuDNN (conv2d) on CUDA GPUs, the set "nvidia".
inline constexpr const char* kBaselineClblast = "clblast";
inline constexpr const char* kBaselineCublas = "cublas";
inline constexpr const char* kBaselineCudnn = "cudnn";
inline constexpr const char* kBaselineNvidia = "nvidia";

// Measures `library`'s routine for `problem` (uploaded as `device_problem`).
// An unknown library comes back `unsupported`.
harness::BaselineResult MeasureBaseline(harness::OpenClContext& context, const Problem& problem,
                                        const DeviceProblem& device_problem,
                                        const std::string& library,
                                        const harness::BenchmarkPlan& plan);

}  // namespace beast
