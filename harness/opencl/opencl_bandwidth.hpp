// Memory bandwidth of an OpenCL device, measured rather than read from a
// spec sheet (PoCL reports none): STREAM's copy (b = a) and triad
// (a = b + s c) on float4 arrays of 32 and 128 MiB each, beyond any
// last-level cache, timed with the tuned kernels' benchmark loop. The
// roofline and the summary use it for the bandwidth bound of a problem.
#pragma once

#include <string>

#include "harness/measure/bandwidth.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast::harness {

inline constexpr const char* kOpenClBandwidthMethod =
    "an OpenCL STREAM microbenchmark (copy and triad on float4 arrays of 32 and 128 MiB, best "
    "median)";

// Builds and times copy and triad at each size that fits the device and
// keeps the fastest. A failure is data (ok=false, error says why); throws
// only what OpenClContext throws for a lost device.
BandwidthResult MeasureOpenClBandwidth(OpenClContext& context, const BenchmarkPlan& plan);

// The program's source: kernels beast_stream_copy and beast_stream_triad.
std::string OpenClStreamKernelSource();

}  // namespace beast::harness
