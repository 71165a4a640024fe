// beast::conv2d and beast::explain_conv2d: torch.nn.functional.conv2d's
// forward through the tuned library.
#pragma once

#include <ATen/ATen.h>
#include <c10/util/Optional.h>

#include <string>

namespace beast_torch {

at::Tensor Conv2d(const at::Tensor& x, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                  at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);

// Which kernel the library would run for this call (its tier, template,
// config and tuning device), and the copies the call makes of its inputs.
std::string ExplainConv2d(const at::Tensor& x, const at::Tensor& weight,
                          const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                          at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);

}  // namespace beast_torch
