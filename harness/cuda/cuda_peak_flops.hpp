// Peak fp32 FLOP/s of a CUDA GPU, measured like the OpenCL device's
// (peak_flops.hpp): a kernel of independent scalar FMA chains per thread (no
// memory traffic in the loop), compiled with NVRTC for the device's
// architecture, on a few blocks per SM, timed with CUDA events by the same
// benchmark loop as the tuned kernels.
#pragma once

#include <string>

#include "harness/cuda/cuda_context.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"

namespace beast::harness {

inline constexpr const char* kCudaPeakMethod =
    "a CUDA FMA microbenchmark (independent fp32 FMA chains per thread on every SM, best median "
    "of a few chain counts and block sizes)";

// Variants failing is data (ok=false, error says why); throws only what
// CudaContext throws for a lost device, or Error(kEnvironment) without NVRTC.
PeakFlopsResult MeasureCudaPeakFlops(CudaContext& context, const BenchmarkPlan& plan);

// The source of one variant (exposed for tests: it compiles with NVRTC here).
std::string CudaPeakKernelSource(int chains);

}  // namespace beast::harness
