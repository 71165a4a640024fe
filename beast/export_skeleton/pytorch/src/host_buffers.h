// CPU tensors on an OpenCL context without copies: each tensor's memory
// wrapped as a buffer (CL_MEM_USE_HOST_PTR), which a CPU OpenCL device such as
// PoCL reads and writes in place, instead of the host API's copy in and out.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "beast_tuned.h"

namespace beast_torch {

// How CPU tensors reach the OpenCL device: wrapped in place (the default), or
// copied in and out by the library's host API (BEAST_TORCH_CPU_TRANSFER=copy).
bool CpuTensorsWrapped();

// The CPU tensors of one call wrapped as buffers of ctx's OpenCL context, for
// the library's device entry points; released on destruction.
class HostBuffers {
 public:
  // Throws a RuntimeError when ctx is not an OpenCL context.
  explicit HostBuffers(beast_context* ctx);
  ~HostBuffers();
  HostBuffers(const HostBuffers&) = delete;
  HostBuffers& operator=(const HostBuffers&) = delete;

  // A buffer over t's memory (t contiguous in some format), as the C API's
  // void*; nullptr for an undefined t.
  void* Wrap(const at::Tensor& t, bool written);
  // Makes what the device wrote to the `written` buffers visible in the
  // tensors' memory (map and unmap on ctx's queue), once the call returned.
  void Finish(const char* op);

 private:
  void* context_ = nullptr;     // cl_context
  void* queue_ = nullptr;       // cl_command_queue: the library's own, which its calls used
  std::vector<void*> buffers_;  // cl_mem
  std::vector<std::pair<void*, size_t>> written_;
};

}  // namespace beast_torch
