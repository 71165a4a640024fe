// The private side of CudaContext and CudaBuffer, shared by the harness's
// CUDA files (context, kernels, libraries).
#pragma once

#include <string>

#include "harness/cuda/cuda_api.hpp"
#include "harness/cuda/cuda_context.hpp"

namespace beast::harness {

struct CudaBufferImpl {
  const cuda::Api* api = nullptr;
  cuda::DevicePtr ptr = 0;
  size_t bytes = 0;
  ~CudaBufferImpl();
};

struct CudaContext::Impl {
  const cuda::Api* api = nullptr;
  beast::DeviceInfo info;
  cuda::Device device = 0;
  cuda::Context context = nullptr;
  cuda::Stream stream = nullptr;
  cuda::Event start = nullptr, stop = nullptr;  // Timed's, created on its first call
  CudaBuffer l2_scratch;                        // allocated on the first FlushL2
  size_t l2_bytes = 0;
  unsigned char l2_value = 0;

  // Throws Error(kEnvironment) "CUDA: <what> failed: <error>" unless ok.
  void Check(cuda::Result result, const std::string& what) const;
  // Enqueues a write over twice the L2 cache's size on the stream (the
  // buffer is allocated the first time); false with *error when it fails.
  bool EnqueueL2Flush(std::string* error);

  // The gate (harness/cuda_gate.hpp), built on the first call: enqueued
  // before every timed call's start event. Without NVRTC, or when it cannot
  // be built, nothing is enqueued and gate_error says why.
  void EnqueueGate();
  cuda::Module gate_module = nullptr;
  cuda::Function gate = nullptr;
  bool gate_tried = false;
  std::string gate_error;
};

}  // namespace beast::harness
