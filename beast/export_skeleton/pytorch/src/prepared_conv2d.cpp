// PreparedConv2d (prepared_conv2d.h). CPU tensors in the copy mode
// (BEAST_TORCH_CPU_TRANSFER=copy) have no device buffers to prepare into:
// their calls are the host API's plain calls, the weight's format copy
// still made once.
#include "prepared_conv2d.h"

#include <c10/util/Exception.h>

#include <utility>

#include "contexts.h"

#ifdef BEAST_TORCH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#endif

namespace beast_torch {

PreparedConv2d::PreparedConv2d(Conv2dCall call) : call_(std::move(call)) {
  const at::Tensor& x = call_.x;
  RefuseAutograd("conv2d_prepare", {&call_.weight, &call_.bias}, /*python_backward=*/false);
  // Tensors of their own over the same memory: `param.data = other` (what
  // Module.to() does) changes the parameter's memory, not these.
  call_.weight = call_.weight.detach();
  if (call_.bias.defined()) call_.bias = call_.bias.detach();
  ctx_ = ContextFor(x.device());
  const beast_conv2d_problem& p = call_.problem;
  void* bias = p.bias ? call_.bias.data_ptr() : nullptr;
  if (p.n == 0 || p.k == 0) {
    // An empty output: nothing to prepare (the library refuses the shape),
    // and Forward returns before any call.
  } else if (x.is_cuda()) {
    last_stream_ = CurrentStream(x.device());
    Check(beast_conv2d_prepare(ctx_, &p, call_.weight.data_ptr(), bias, last_stream_, &handle_),
          "conv2d_prepare");
  } else if (CpuTensorsWrapped()) {
    weights_ = std::make_unique<HostBuffers>(ctx_);
    Check(beast_conv2d_prepare(ctx_, &p, weights_->Wrap(call_.weight, false),
                               weights_->Wrap(p.bias ? call_.bias : at::Tensor(), false), nullptr,
                               &handle_),
          "conv2d_prepare");
  }
  call_.x = at::Tensor();  // only its shape was needed: the handle keeps no input alive
}

// The library waits for the device before it frees a CUDA workspace.
PreparedConv2d::~PreparedConv2d() { beast_conv2d_prepared_destroy(handle_); }

namespace {

// Makes `next` wait for the work queued on `last` (CUDA streams of
// `device`). The event is made and recorded on the streams' device, not the
// calling thread's current one (a new thread starts on device 0), and freed
// whether or not the ordering worked.
void OrderStreams(void* last, void* next, const c10::Device& device) {
#ifdef BEAST_TORCH_CUDA
  if (last == nullptr || last == next) return;
  const c10::cuda::CUDAGuard guard(device);
  cudaEvent_t done = nullptr;
  const bool ordered = cudaEventCreateWithFlags(&done, cudaEventDisableTiming) == cudaSuccess &&
                       cudaEventRecord(done, static_cast<cudaStream_t>(last)) == cudaSuccess &&
                       cudaStreamWaitEvent(static_cast<cudaStream_t>(next), done, 0) == cudaSuccess;
  // Only a failure here is read (and cleared): an error pending from other
  // work is not this call's to take.
  const cudaError_t error = ordered ? cudaSuccess : cudaGetLastError();
  if (done != nullptr) cudaEventDestroy(done);
  TORCH_CHECK(ordered, "beast::PreparedConv2d: ordering the streams of two calls failed: ",
              cudaGetErrorString(error));
#else
  (void)last;
  (void)next;
  (void)device;
#endif
}

}  // namespace

at::Tensor PreparedConv2d::Forward(const at::Tensor& x) {
  RefuseAutograd("PreparedConv2d.forward", {&x}, /*python_backward=*/false);
  const beast_conv2d_problem& p = call_.problem;
  TORCH_CHECK(x.dim() == 4 && x.size(0) == p.n && x.size(1) == p.c && x.size(2) == p.h &&
                  x.size(3) == p.w && x.scalar_type() == call_.weight.scalar_type() &&
                  x.device() == call_.weight.device(),
              "beast::PreparedConv2d: prepared for a ", call_.weight.scalar_type(), " input of (",
              p.n, ", ", p.c, ", ", p.h, ", ", p.w, ") on ", call_.weight.device(), ", not a ",
              x.scalar_type(), " input of ", x.sizes(), " on ", x.device());
  const at::Tensor input = x.contiguous(call_.format);
  at::Tensor y = EmptyConv2dOutput(call_, input);
  if (y.numel() == 0) return y;
  if (x.is_cuda()) {
    std::lock_guard<std::mutex> lock(mutex_);
    void* stream = CurrentStream(x.device());
    OrderStreams(last_stream_, stream, x.device());
    last_stream_ = stream;
    Check(beast_conv2d_forward_prepared(ctx_, handle_, input.data_ptr(), y.data_ptr(), stream),
          "conv2d_prepared");
  } else if (handle_ != nullptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    HostBuffers buffers(ctx_);
    Check(beast_conv2d_forward_prepared(ctx_, handle_, buffers.Wrap(input, false),
                                        buffers.Wrap(y, true), nullptr),
          "conv2d_prepared");
    buffers.Finish("conv2d_prepared");
  } else {  // no workspace: plain calls need no turns
    Check(beast_conv2d_forward_host(ctx_, &p, input.data_ptr(), call_.weight.data_ptr(),
                                    p.bias ? call_.bias.data_ptr() : nullptr, y.data_ptr()),
          "conv2d_prepared");
  }
  return y;
}

c10::intrusive_ptr<PreparedConv2d> PrepareConv2d(const at::Tensor& x, const at::Tensor& weight,
                                                 const c10::optional<at::Tensor>& bias,
                                                 at::IntArrayRef stride, at::IntArrayRef padding,
                                                 at::IntArrayRef dilation, int64_t groups) {
  return c10::make_intrusive<PreparedConv2d>(
      MakeConv2dCall(x, weight, bias, stride, padding, dilation, groups));
}

}  // namespace beast_torch
