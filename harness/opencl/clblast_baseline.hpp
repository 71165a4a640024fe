// CLBlast as a baseline: runs CLBlast's routine for a problem (SGEMM for gemm,
// Convgemm for NCHW conv2d) on the same OpenCL context, queue and input
// buffers as beast's kernels, validates its output against the same CPU
// reference and tolerance, and times it with the same benchmark loop, so a
// tuned kernel's speed-up over CLBlast is measured, not quoted. CLBlast is
// optional at build time (BEAST_HAVE_CLBLAST); without it every problem comes
// back `unsupported`. A failing call is data (a status and a message), never
// an exception.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "beast/problem/problem.hpp"
#include "harness/measure/baseline_result.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast::harness {

// True when this build links CLBlast.
bool ClblastAvailable();
// CLBlast's version ("1.5.3"), or "" without CLBlast.
std::string ClblastVersion();

// The CLBlast routine that computes `problem`: "Sgemm" for every f32 GEMM
// (row- or column-major, any transposition), "Dgemm" for f64, "Convgemm"
// (f32) / "Dconvgemm" for a conv2d. Convgemm takes an NCHW image, a KCRS filter and
// no groups or bias. f16 ("Hgemm": CLBlast's half routines accumulate in
// half, not in the f32 beast checks f16 results against) and bf16 (no
// routine) are unsupported. For anything unsupported the routine is still
// named (so a database can record it) and `why_not`, when given, says what
// it lacks. Pure: needs no device.
std::string ClblastRoutine(const beast::Problem& problem, std::string* why_not = nullptr);

// A problem's operands on the device, in beast's layouts (conv2d: x, w, y;
// gemm: A, B, C) with the CPU reference the output is validated against.
struct BaselineOperands {
  OpenClBuffer input0, input1, output;
  const float* reference = nullptr;      // output_count values (f32 problems)
  const float* abs_reference = nullptr;  // the bound's scale (validation.hpp)
  const double* reference64 = nullptr;   // the same for an f64 problem
  const double* abs_reference64 = nullptr;
  size_t output_count = 0;
  int64_t reduction_length = 1;
};

// Runs CLBlast's routine for `problem` once on an output poisoned with NaN,
// validates it, then times it with Benchmark(plan). One sample is the device
// time from a marker enqueued just before the call to the end of the last
// command CLBlast enqueued, on an otherwise idle in-order queue: every kernel
// CLBlast runs (padding and transposition copies, im2col, the GEMM) and the
// host work between them (kernel objects, temporary buffers, Convgemm's wait
// for its im2col), which a caller pays on every call. Throws
// Error(kEnvironment) only when a transfer fails (the device is lost), like
// the kernel measurement.
BaselineResult MeasureClblast(OpenClContext& context, const beast::Problem& problem,
                              const BaselineOperands& operands, const BenchmarkPlan& plan);

}  // namespace beast::harness
