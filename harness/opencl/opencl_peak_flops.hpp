// Peak fp32 FLOP/s of an OpenCL device, measured rather than computed from a
// spec sheet: a kernel of independent FMA chains on float8 vectors (no memory
// traffic in the loop) runs on every compute unit and is timed with the same
// benchmark loop as the tuned kernels. On a CPU (PoCL) the clock, the number
// of FMA units and the vector width the compiler reaches are all in the
// number, which is what a "fraction of peak" should be relative to.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast::harness {

// Names the method in reports and in the database ("measured by ...").
inline constexpr const char* kOpenClPeakMethod =
    "an OpenCL FMA microbenchmark (independent float8 FMA chains on every compute unit, best "
    "median of a few chain counts and work-group sizes)";

// Builds and times a few variants (chain counts and work-group sizes, because
// which one saturates the FMA units depends on the compiler's vectorization)
// and keeps the fastest. Kernel failures are data (ok=false, error says why);
// throws only what OpenClContext throws for a lost device. f64: the same on
// double8 chains (cl_khr_fp64), for the fp64 peak; not ok, saying so, on a
// device without double precision.
PeakFlopsResult MeasureOpenClPeakFlops(OpenClContext& context, const BenchmarkPlan& plan,
                                       bool f64 = false);

// The source of one variant (exposed for tests).
std::string OpenClPeakKernelSource(int chains, bool f64 = false);

}  // namespace beast::harness
