// beast::conv2d and beast::explain_conv2d: torch.nn.functional.conv2d's
// forward through the tuned library, and the description of one call that
// they and the prepared convolution (prepared_conv2d.h) share.
#pragma once

#include <ATen/ATen.h>
#include <c10/util/Optional.h>

#include <string>

#include "beast_tuned.h"

namespace beast_torch {

// One convolution described for the library: the problem, the inputs in the
// layout it names, the output's size, and what had to be copied to get the
// inputs there.
struct Conv2dCall {
  beast_conv2d_problem problem{};
  at::Tensor x, weight, bias;
  at::MemoryFormat format = at::MemoryFormat::Contiguous;
  int64_t out_h = 0, out_w = 0;
  std::string copies;  // "", or which inputs were copied and why
};

// The call for these arguments, or a RuntimeError naming what does not fit.
Conv2dCall MakeConv2dCall(const at::Tensor& x, const at::Tensor& weight,
                          const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                          at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);

// The call's output for input x (the call's, or one of its shape),
// uninitialised, in the call's memory format.
at::Tensor EmptyConv2dOutput(const Conv2dCall& call, const at::Tensor& x);

at::Tensor Conv2d(const at::Tensor& x, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                  at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);

// Which kernel the library would run for this call (its tier, template,
// config and tuning device), and the copies the call makes of its inputs.
std::string ExplainConv2d(const at::Tensor& x, const at::Tensor& weight,
                          const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                          at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);

}  // namespace beast_torch
