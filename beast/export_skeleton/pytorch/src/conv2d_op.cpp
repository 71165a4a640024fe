// beast::conv2d (conv2d_op.h). The tensor's memory format picks the problem's
// layout: contiguous_format runs NCHW problems, channels_last NHWC ones, each
// on the tensor's own memory (CPU tensors wrapped as OpenCL buffers, or
// copied: host_buffers.h); any other strides are made contiguous once (and
// explain_conv2d says so).
#include "conv2d_op.h"

#include <c10/util/Exception.h>

#include "contexts.h"
#include "host_buffers.h"

namespace beast_torch {
namespace {

int64_t At(at::IntArrayRef values, size_t i, const char* what) {
  TORCH_CHECK(values.size() == 1 || values.size() == 2, "beast::conv2d: ", what,
              " needs 1 or 2 values, not ", values.size());
  return values[values.size() == 1 ? 0 : i];
}

// The input in `format`, noting a copy (and why) when it was not already.
at::Tensor InFormat(const at::Tensor& t, at::MemoryFormat format, const char* name, const char* why,
                    std::string* copies) {
  if (t.is_contiguous(format)) return t;
  *copies += std::string(copies->empty() ? "" : "; ") + name + " copied into " +
             (format == at::MemoryFormat::ChannelsLast ? "channels_last" : "contiguous") +
             " memory (" + why + ")";
  return t.contiguous(format);
}

int64_t OutSize(int64_t in, int pad, int dilation, int kernel, int stride) {
  const int64_t span = in + 2 * pad - static_cast<int64_t>(dilation) * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

}  // namespace

Conv2dCall MakeConv2dCall(const at::Tensor& x, const at::Tensor& weight,
                          const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                          at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  TORCH_CHECK(x.dim() == 4, "beast::conv2d: input must be 4-D (N, C, H, W), not ", x.dim(), "-D");
  TORCH_CHECK(weight.dim() == 4, "beast::conv2d: weight must be 4-D (K, C/groups, R, S), not ",
              weight.dim(), "-D");
  TORCH_CHECK(weight.scalar_type() == x.scalar_type(), "beast::conv2d: weight is ",
              weight.scalar_type(), " but input is ", x.scalar_type());
  TORCH_CHECK(weight.device() == x.device(), "beast::conv2d: weight is on ", weight.device(),
              " but input on ", x.device());
  TORCH_CHECK(groups >= 1 && x.size(1) == weight.size(1) * groups && weight.size(0) % groups == 0,
              "beast::conv2d: input channels ", x.size(1), ", weight ", weight.sizes(),
              " and groups ", groups, " do not fit together");
  const bool has_bias = bias.has_value() && bias->defined();
  if (has_bias) {
    TORCH_CHECK(bias->dim() == 1 && bias->size(0) == weight.size(0),
                "beast::conv2d: bias must hold ", weight.size(0), " values, not ", bias->sizes());
    TORCH_CHECK(bias->scalar_type() == x.scalar_type() && bias->device() == x.device(),
                "beast::conv2d: bias must be ", x.scalar_type(), " on ", x.device());
  }
  Conv2dCall call;
  beast_conv2d_problem& p = call.problem;
  p.dtype = DTypeOf(x, "conv2d");
  p.n = Narrow(x.size(0), "conv2d", "N");
  p.c = Narrow(x.size(1), "conv2d", "C");
  p.h = Narrow(x.size(2), "conv2d", "H");
  p.w = Narrow(x.size(3), "conv2d", "W");
  p.k = Narrow(weight.size(0), "conv2d", "K");
  p.r = Narrow(weight.size(2), "conv2d", "R");
  p.s = Narrow(weight.size(3), "conv2d", "S");
  p.stride_h = Narrow(At(stride, 0, "stride"), "conv2d", "stride");
  p.stride_w = Narrow(At(stride, 1, "stride"), "conv2d", "stride");
  p.pad_h = Narrow(At(padding, 0, "padding"), "conv2d", "padding");
  p.pad_w = Narrow(At(padding, 1, "padding"), "conv2d", "padding");
  p.dilation_h = Narrow(At(dilation, 0, "dilation"), "conv2d", "dilation");
  p.dilation_w = Narrow(At(dilation, 1, "dilation"), "conv2d", "dilation");
  p.groups = Narrow(groups, "conv2d", "groups");
  p.bias = has_bias ? 1 : 0;
  // channels_last when the input's or the weight's strides suggest it, as
  // PyTorch's own CPU convolution decides (a tensor both formats describe,
  // one channel or a 1x1 image, follows its strides' order).
  const auto channels_last = at::MemoryFormat::ChannelsLast;
  call.format =
      x.suggest_memory_format() == channels_last || weight.suggest_memory_format() == channels_last
          ? channels_last
          : at::MemoryFormat::Contiguous;
  p.layout = call.format == at::MemoryFormat::ChannelsLast ? BEAST_LAYOUT_NHWC : BEAST_LAYOUT_NCHW;
  call.x =
      InFormat(x, call.format, "input", "the weight's format, or strides of neither", &call.copies);
  call.weight = InFormat(weight, call.format, "weight", "the input's format", &call.copies);
  if (has_bias) call.bias = bias->contiguous();
  TORCH_CHECK(p.stride_h > 0 && p.stride_w > 0 && p.dilation_h > 0 && p.dilation_w > 0,
              "beast::conv2d: stride and dilation must be positive");
  call.out_h = OutSize(p.h, p.pad_h, p.dilation_h, p.r, p.stride_h);
  call.out_w = OutSize(p.w, p.pad_w, p.dilation_w, p.s, p.stride_w);
  TORCH_CHECK(call.out_h > 0 && call.out_w > 0, "beast::conv2d: the ", p.r, "x", p.s,
              " filter (dilated, padded) does not fit the ", p.h, "x", p.w, " input");
  return call;
}

at::Tensor EmptyConv2dOutput(const Conv2dCall& call, const at::Tensor& x) {
  const beast_conv2d_problem& p = call.problem;
  return at::empty({p.n, p.k, call.out_h, call.out_w}, x.options().memory_format(call.format));
}

at::Tensor Conv2d(const at::Tensor& x, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                  at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  RefuseAutograd("conv2d", {&x, &weight, bias ? &*bias : nullptr});
  Conv2dCall call = MakeConv2dCall(x, weight, bias, stride, padding, dilation, groups);
  const beast_conv2d_problem& p = call.problem;
  at::Tensor y = EmptyConv2dOutput(call, call.x);
  if (y.numel() == 0) return y;
  beast_context* ctx = ContextFor(x.device());
  void* bias_ptr = p.bias ? call.bias.data_ptr() : nullptr;
  if (x.is_cuda()) {
    Check(beast_conv2d_forward(ctx, &p, call.x.data_ptr(), call.weight.data_ptr(), bias_ptr,
                               y.data_ptr(), CurrentStream(x.device())),
          "conv2d");
  } else if (CpuTensorsWrapped()) {
    HostBuffers buffers(ctx);
    Check(
        beast_conv2d_forward(ctx, &p, buffers.Wrap(call.x, false), buffers.Wrap(call.weight, false),
                             buffers.Wrap(p.bias ? call.bias : at::Tensor(), false),
                             buffers.Wrap(y, true), nullptr),
        "conv2d");
    buffers.Finish("conv2d");
  } else {
    Check(beast_conv2d_forward_host(ctx, &p, call.x.data_ptr(), call.weight.data_ptr(), bias_ptr,
                                    y.data_ptr()),
          "conv2d");
  }
  return y;
}

std::string ExplainConv2d(const at::Tensor& x, const at::Tensor& weight,
                          const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                          at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  Conv2dCall call = MakeConv2dCall(x, weight, bias, stride, padding, dilation, groups);
  char text[2048];
  Check(beast_explain_conv2d(ContextFor(x.device()), &call.problem, text, sizeof text),
        "explain_conv2d");
  std::string out = text;
  out +=
      call.copies.empty() ? "\nno copies: the tensors run in their own memory" : "\n" + call.copies;
  return out;
}

}  // namespace beast_torch
