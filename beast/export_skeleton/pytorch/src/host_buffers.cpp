// HostBuffers (host_buffers.h). The OpenCL spec leaves a USE_HOST_PTR
// buffer's host memory undefined while the device owns it: a map after the
// kernel hands it back (on PoCL a no-op that returns the same pointer; on a
// discrete device the copy the host API would have made anyway).
#include "host_buffers.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <c10/util/Exception.h>

#include <cstdlib>
#include <cstring>

namespace beast_torch {

bool CpuTensorsWrapped() {
  static const bool wrapped = [] {
    const char* mode = std::getenv("BEAST_TORCH_CPU_TRANSFER");
    if (mode == nullptr || *mode == '\0' || std::strcmp(mode, "wrap") == 0) return true;
    TORCH_CHECK(std::strcmp(mode, "copy") == 0, "BEAST_TORCH_CPU_TRANSFER=", mode,
                " is neither wrap nor copy");
    return false;
  }();
  return wrapped;
}

HostBuffers::HostBuffers(beast_context* ctx) {
  TORCH_CHECK(beast_context_opencl(ctx, &context_, nullptr, &queue_) == BEAST_OK,
              "beast_torch: ", beast_last_error());
}

HostBuffers::~HostBuffers() {
  for (void* b : buffers_) clReleaseMemObject(static_cast<cl_mem>(b));
}

void* HostBuffers::Wrap(const at::Tensor& t, bool written) {
  if (!t.defined()) return nullptr;
  const size_t bytes = t.numel() * t.element_size();
  cl_int err = CL_SUCCESS;
  cl_mem mem =
      clCreateBuffer(static_cast<cl_context>(context_),
                     (written ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY) | CL_MEM_USE_HOST_PTR, bytes,
                     t.data_ptr(), &err);
  TORCH_CHECK(err == CL_SUCCESS, "beast_torch: the OpenCL device refused a buffer over ", bytes,
              " bytes of tensor memory (error ", err,
              "); BEAST_TORCH_CPU_TRANSFER=copy copies instead");
  buffers_.push_back(mem);
  if (written) written_.emplace_back(mem, bytes);
  return mem;
}

void HostBuffers::Finish(const char* op) {
  cl_command_queue q = static_cast<cl_command_queue>(queue_);
  for (const auto& [buffer, bytes] : written_) {
    cl_mem mem = static_cast<cl_mem>(buffer);
    cl_int err = CL_SUCCESS;
    void* host =
        clEnqueueMapBuffer(q, mem, CL_TRUE, CL_MAP_READ, 0, bytes, 0, nullptr, nullptr, &err);
    TORCH_CHECK(err == CL_SUCCESS, "beast::", op, ": mapping the output failed (error ", err, ")");
    clEnqueueUnmapMemObject(q, mem, host, 0, nullptr, nullptr);
  }
  clFinish(q);
}

}  // namespace beast_torch
