// beast::PreparedConv2d: one convolution's weights prepared once for many
// calls (the C API's beast_conv2d_prepare), for inference. A tuned kernel
// that transforms its weights first (Winograd's filter transform) then runs
// the transform once instead of in every call, and a weight in the other
// memory format is copied once. beast_torch.Conv2d keeps one per input
// shape and weight version; torch.ops.beast.conv2d_prepare makes one.
#pragma once

#include <ATen/ATen.h>
#include <torch/custom_class.h>

#include <memory>
#include <mutex>

#include "beast_tuned.h"
#include "conv2d_op.h"
#include "host_buffers.h"

namespace beast_torch {

class PreparedConv2d : public torch::CustomClassHolder {
 public:
  // Prepares `call`. The handle holds its own references to the weight's
  // and bias's memory (a parameter given other memory later, as Module.to()
  // does, leaves this memory alive), and a workspace outside PyTorch's
  // allocator: a tuned entry's, sized for this input shape.
  explicit PreparedConv2d(Conv2dCall call);
  ~PreparedConv2d() override;

  // The convolution of x (the shape, dtype and device it was prepared for;
  // else a RuntimeError naming the difference; another memory format is
  // copied into the prepared one first) with the prepared weights: a kernel
  // with a prepare step reads what that step made of them, one without
  // reads the weights themselves. Prepare again after they change.
  at::Tensor Forward(const at::Tensor& x);

 private:
  Conv2dCall call_;
  beast_context* ctx_ = nullptr;
  // CPU tensors wrapped in place: the weight's and bias's buffers, which the
  // handle refers to for its life.
  std::unique_ptr<HostBuffers> weights_;
  beast_conv2d_prepared* handle_ = nullptr;
  // Calls with one handle share its workspace (the kernels' intermediate
  // results too): they take turns enqueueing, and a CUDA call on another
  // stream than the last one waits for that stream's work first.
  std::mutex mutex_;
  void* last_stream_ = nullptr;  // CUDA
};

// torch.ops.beast.conv2d_prepare: the arguments of beast::conv2d, x giving
// the input's shape, dtype, device and memory format.
c10::intrusive_ptr<PreparedConv2d> PrepareConv2d(const at::Tensor& x, const at::Tensor& weight,
                                                 const c10::optional<at::Tensor>& bias,
                                                 at::IntArrayRef stride, at::IntArrayRef padding,
                                                 at::IntArrayRef dilation, int64_t groups);

}  // namespace beast_torch
