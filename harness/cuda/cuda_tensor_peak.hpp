// Peak tensor-core FLOP/s of a CUDA GPU for one warp-level mma input type
// (f16, bf16, TF32), measured as the FMA peak is (cuda_peak_flops.hpp): a
// kernel whose warps issue independent chains of mma.sync on register
// fragments (no memory traffic in the loop), the instruction the
// tensor-core templates issue (kernel_templates/_common/mma.j2), on a few
// blocks per SM, timed by the same benchmark loop as the tuned kernels. It
// is the roof of those templates' winners (%peak in the run's summary).
#pragma once

#include <string>

#include "harness/cuda/cuda_context.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"

namespace beast::harness {

inline constexpr const char* kCudaTensorPeakMethod =
    "a CUDA mma.sync microbenchmark (independent chains of m16n8k16, or m16n8k8 for TF32, per "
    "warp on every SM, best median of a few chain counts and block sizes)";

// Variants failing is data (ok=false, error says why); a GPU below compute
// capability 8.0 is not measured (error says so). Throws only what
// CudaContext throws for a lost device, or Error(kEnvironment) without NVRTC.
PeakFlopsResult::OtherPeak MeasureCudaTensorPeak(CudaContext& context, const BenchmarkPlan& plan,
                                                 TensorInput input);

// The source of one variant (exposed for tests: it compiles with NVRTC
// here), and the FLOPs of one of its mma instructions.
std::string CudaTensorPeakKernelSource(TensorInput input, int chains);
double CudaTensorMmaFlops(TensorInput input);

}  // namespace beast::harness
