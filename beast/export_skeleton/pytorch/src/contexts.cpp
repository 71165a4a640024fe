// Process-wide beast contexts (contexts.h): the C API allows one context to
// serve several threads, so one per device is shared, behind a mutex only
// while it is made.
#include "contexts.h"

#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#ifdef BEAST_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

namespace beast_torch {
namespace {

int OpenClDeviceIndex() {
  const char* text = std::getenv("BEAST_TORCH_OPENCL_DEVICE");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long index = std::strtol(text, &end, 10);
  TORCH_CHECK(*end == '\0' && index >= 0, "BEAST_TORCH_OPENCL_DEVICE=", text,
              " is not a device index (0, 1, ...)");
  return static_cast<int>(index);
}

}  // namespace

beast_context* ContextFor(const c10::Device& device) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, beast_context*> contexts;  // (backend, index)
  beast_backend backend;
  int index;
  if (device.is_cpu()) {
    backend = BEAST_BACKEND_OPENCL;
    index = OpenClDeviceIndex();
  } else if (device.is_cuda()) {
#ifndef BEAST_TORCH_CUDA
    TORCH_CHECK(false, "beast_torch was built against a PyTorch without CUDA: tensors on ",
                device.str(), " are not supported (CPU tensors are)");
#endif
    backend = BEAST_BACKEND_CUDA;
    index = device.has_index() ? device.index() : 0;
  } else {
    TORCH_CHECK(false, "beast_torch runs CPU and CUDA tensors, not tensors on ", device.str());
  }
  std::lock_guard<std::mutex> lock(mutex);
  beast_context*& ctx = contexts[{backend, index}];
  if (ctx == nullptr) {
    const beast_status status = beast_context_create(backend, index, &ctx);
    if (status != BEAST_OK) {
      ctx = nullptr;
      TORCH_CHECK(false, "beast_torch cannot open ",
                  backend == BEAST_BACKEND_CUDA ? "CUDA GPU " : "OpenCL device ", index,
                  " for tensors on ", device.str(), ": ", beast_last_error());
    }
  }
  return ctx;
}

void* CurrentStream(const c10::Device& device) {
#ifdef BEAST_TORCH_CUDA
  // PyTorch spells its default stream, the legacy one, as a null
  // cudaStream_t, which the C API would read as its own stream, synchronised
  // after every call: name it, CU_STREAM_LEGACY (cuda.h's 0x1).
  void* stream = c10::cuda::getCurrentCUDAStream(device.index()).stream();
  return stream ? stream : reinterpret_cast<void*>(std::uintptr_t{1});
#else
  TORCH_CHECK(false, "no CUDA stream for ", device.str(), ": beast_torch was built without CUDA");
#endif
}

beast_dtype DTypeOf(const at::Tensor& t, const char* op) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return BEAST_DTYPE_F32;
    case at::kDouble:
      return BEAST_DTYPE_F64;
    case at::kHalf:
      return BEAST_DTYPE_F16;
    case at::kBFloat16:
      return BEAST_DTYPE_BF16;
    default:
      TORCH_CHECK(false, "beast::", op, ": dtype ", t.scalar_type(),
                  " is not supported (float32, float64, float16, bfloat16)");
  }
}

void RefuseAutograd(const char* op, std::initializer_list<const at::Tensor*> inputs,
                    bool python_backward) {
  if (!at::GradMode::is_enabled()) return;
  for (const at::Tensor* t : inputs) {
    if (t == nullptr || !t->defined() || !t->requires_grad()) continue;
    TORCH_CHECK(!python_backward, "beast::", op,
                " has no backward: call it under torch.no_grad() or torch.inference_mode(), or "
                "use beast_torch.",
                op, ", whose backward runs PyTorch's own gradient (beast tunes the forward pass)");
    TORCH_CHECK(false, "beast::", op,
                " has no backward (prepared weights are for inference): call it under "
                "torch.no_grad() or torch.inference_mode()");
  }
}

int Narrow(int64_t value, const char* op, const char* what) {
  TORCH_CHECK(value >= 0 && value <= INT32_MAX, "beast::", op, ": ", what, " = ", value,
              " is out of range");
  return static_cast<int>(value);
}

void Check(beast_status status, const char* op) {
  TORCH_CHECK(status == BEAST_OK, "beast::", op, ": ", beast_last_error());
}

}  // namespace beast_torch
