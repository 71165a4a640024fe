// The result of a peak FLOP/s microbenchmark, whatever the backend measured
// it (opencl/opencl_peak_flops.hpp, cuda/cuda_peak_flops.hpp): the best of a
// few kernel variants, and how it was measured.
#pragma once

#include <string>
#include <vector>

#include "harness/measure/bandwidth.hpp"

namespace beast::harness {

// The input types of the warp-level mma the tensor-core templates issue:
// f16 and bf16 (f32 sums), TF32 (f32 problems with math=tf32).
enum TensorInput { kTensorF16 = 0, kTensorBf16 = 1, kTensorTf32 = 2, kTensorInputs = 3 };
// The summary, its JSON and the wire spell the three out.
static_assert(kTensorInputs == 3);
// "f16", "bf16", "tf32".
const char* TensorInputName(int input);

struct PeakFlopsResult {
  bool ok = false;
  double gflops = 0;  // the best variant's FLOPs / its median time
  double median_ms = 0;
  double spread = 0;
  std::string variant;  // "chains=12 local=4 groups=64"
  std::string error;    // why no variant ran, when !ok
  std::string method;   // how it was measured (kPeakMethod, kCudaPeakMethod)
  // The device's other peak, measured in the same request: its memory
  // bandwidth (not ok where the backend has no microbenchmark for it).
  BandwidthResult bandwidth;
  // The peak in double precision, measured in the same request where the
  // backend has a microbenchmark for it and the device double precision
  // (the roof of f64 winners; f16 and bf16 compute in fp32, under the peak
  // above). Not ok otherwise, error says why.
  struct OtherPeak {
    bool ok = false;
    double gflops = 0;
    std::string variant, error;
  };
  OtherPeak fp64;
  // The tensor cores' peak for each warp-level mma input type (TensorInput),
  // measured where the request asks for it and the backend has tensor cores
  // (CUDA, compute capability 8.0 and later): the roof of the tensor-core
  // templates. Not ok otherwise, error says why.
  OtherPeak tensor[kTensorInputs];
};

// A variant's timed samples of `flops` each: it becomes *best when its
// GFLOP/s (flops / median) beats best's or best has none yet.
void KeepFasterVariant(const std::vector<double>& samples, double flops, const std::string& variant,
                       PeakFlopsResult* best);

}  // namespace beast::harness
