// Runs one kernel of a compiled CUDA module (a cubin from NVRTC) on a
// CudaContext: loads the module, binds the arguments once, then launches with
// a geometry (grid = global / local blocks of local threads, dynamic shared
// memory and the shared-memory carveout set on the function first) and
// returns the kernel's time from CUDA events around the launch. A module the
// driver refuses, a missing kernel or a failing launch is data (ok() false or
// a runtime_error LaunchResult), never an exception.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/cuda/cuda_context.hpp"
#include "harness/measure/kernel_arg.hpp"
#include "harness/measure/launch.hpp"

namespace beast::harness {

// One kernel argument: a buffer of this backend or a scalar.
using CudaKernelArg = KernelArg<CudaBuffer>;

// What the driver says the loaded function uses (cuFuncGetAttribute).
struct CudaFunctionResources {
  int registers = 0;              // per thread
  int static_shared_bytes = 0;    // per block, __shared__ arrays
  int local_bytes = 0;            // per thread: stack and spills
  int max_threads_per_block = 0;  // for this function's registers
};

// Owns the module; its bound arguments are state: one thread at a time.
class CudaKernel {
 public:
  CudaKernel(CudaContext& context, const std::string& image, const std::string& kernel_name,
             const std::vector<CudaKernelArg>& args);
  ~CudaKernel();
  CudaKernel(const CudaKernel&) = delete;
  CudaKernel& operator=(const CudaKernel&) = delete;

  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }
  const CudaFunctionResources& resources() const { return resources_; }

  // Launches on the context's stream and waits. With flush_l2, the context's
  // L2 flush runs first, outside the timed events.
  LaunchResult Launch(const LaunchGeometry& geometry, bool flush_l2 = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string message_;
  CudaFunctionResources resources_;
};

}  // namespace beast::harness
