// ProblemData: the inputs of one problem (deterministic random values) and
// the CPU reference output with its error-bound scale, computed once per
// problem and shared by every config measured on it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "beast/problem/problem.hpp"

namespace beast {

struct ProblemData {
  // The element type of the device buffers. The inputs below are float
  // values whatever it is (exact in f64; for f16 and bf16 already rounded to
  // what the buffers hold, so the reference sums exactly what the kernel
  // reads); an f64 problem's reference is kept in double (reference64), the
  // float one is then empty.
  DType dtype = DType::kF32;
  bool tf32 = false;                 // math=tf32: checked with the TF32 input rounding's bound
  std::vector<float> input0;         // conv2d: x; gemm: A
  std::vector<float> input1;         // conv2d: w; gemm: B
  std::vector<float> bias;           // conv2d with bias: b (K values); else empty
  std::vector<float> reference;      // the exact output, rounded to float
  std::vector<float> abs_reference;  // the same over absolute values (error bound)
  std::vector<double> reference64, abs_reference64;  // f64 problems only
  int64_t reduction_length = 1;                      // terms per output
  size_t output_count = 0;
  std::string problem_key;
  // The error-bound scale of a Winograd F(m x m, 3 x 3) kernel, per m, made
  // when a kernel of that m is first validated (WinogradScaleOf).
  struct WinogradScale {
    std::vector<float> abs;        // the bound's S per output (float problems)
    std::vector<double> abs64;     // the same for an f64 problem
    int64_t reduction_length = 0;  // its L_W
  };
  mutable std::map<int, WinogradScale> winograd_scales;
};

// The Winograd error-bound scale of `data`'s conv2d problem for tile m
// (harness/measure/winograd_bound.hpp), computed once and kept in `data`.
const ProblemData::WinogradScale& WinogradScaleOf(const ProblemData& data, int m);
// Makes that scale ahead of the kernel, as part of the problem's setup, when
// m > 0 and the problem is a convolution (a kernel declaring Winograd for
// another problem fails at its validation, which says why).
void PrepareWinogradScale(const ProblemData& data, int m);

ProblemData MakeProblemData(const Problem& problem);

// Bytes of one device element (DTypeBytes(dtype)).
size_t ElementBytes(const ProblemData& data);

// What keeping `data` costs: its host arrays and the device buffers of its
// inputs and output, in bytes.
size_t KeptBytes(const ProblemData& data);

// What a device worker may keep of its problems (ProblemShelf): a
// sixteenth of the host's memory (a node may run a worker per GPU, each
// holding its problems in host memory) and an eighth of its device's
// (`device_bytes`; 0: unknown): room for a job's problems, the rest left
// for kernels and their workspaces.
size_t ProblemShelfBytes(int64_t device_bytes);
// `values` as the device's elements: the floats themselves, as doubles for an
// f64 problem, as f16 or bf16 bits (rounded to nearest even) for those.
std::vector<unsigned char> DeviceElements(const ProblemData& data,
                                          const std::vector<float>& values);

// f16 or bf16 elements (`dtype`) read back from a device, as floats.
std::vector<float> StoredElementsAsFloat(DType dtype, const std::vector<uint16_t>& bits);

// A device buffer holding `values` in the problem's element type, on either
// backend's context (both Allocate and Write alike).
template <typename Context>
auto UploadElements(Context& context, const ProblemData& data, const std::vector<float>& values) {
  const std::vector<unsigned char> bytes = DeviceElements(data, values);
  auto buffer = context.Allocate(bytes.size());
  context.Write(buffer, bytes.data(), bytes.size());
  return buffer;
}

// Buffers of the problem's sizes, inputs all zero, no reference: enough to
// launch a kernel (the compile pool's warm-up launch), not to check it.
ProblemData ZeroProblemData(const Problem& problem);

}  // namespace beast
