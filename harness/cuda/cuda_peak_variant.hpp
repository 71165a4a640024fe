// The loop the CUDA peak microbenchmarks share (the FMA peak,
// cuda_peak_flops.hpp, and the tensor cores', cuda_tensor_peak.hpp): each
// variant (chains per thread or warp, block size, blocks per SM) compiled
// with NVRTC, run on every SM, its loop sized by a probe launch so that one
// launch takes about 10 ms, timed by the benchmark loop of the tuned
// kernels; the fastest variant wins.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/cuda/cuda_context.hpp"
#include "harness/cuda/cuda_kernel.hpp"
#include "harness/measure/peak_flops.hpp"
#include "harness/measure/timing.hpp"

namespace beast::harness {

struct PeakVariant {
  int chains;
  unsigned block;
  int blocks_per_sm;
};

struct PeakKernel {
  std::string name;                               // the kernel's name in each source
  std::function<std::string(int chains)> source;  // a variant's source
  // Its arguments: the buffer each thread writes its sums to, the loop count.
  std::function<std::vector<CudaKernelArg>(const CudaBuffer& out, int iterations)> args;
  // The FLOPs of a launch of `threads` threads with that loop count.
  std::function<double(const PeakVariant&, int iterations, double threads)> flops;
  int probe_iterations = 1024;                            // the probe launch's loop count
  double min_iterations = 256, max_iterations = 1 << 24;  // bounds of the timed one's
};

// The best variant (ok=false with every variant's failure in error when none
// ran; variants whose block the device cannot launch are skipped).
PeakFlopsResult MeasureCudaPeakVariants(CudaContext& context, const BenchmarkPlan& plan,
                                        const std::vector<PeakVariant>& variants,
                                        const PeakKernel& kernel);

}  // namespace beast::harness
