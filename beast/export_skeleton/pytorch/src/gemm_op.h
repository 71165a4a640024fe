// beast::gemm (a @ b) and beast::linear (x @ weight.T + bias) through the
// tuned library, and beast::explain_gemm.
#pragma once

#include <ATen/ATen.h>
#include <c10/util/Optional.h>

#include <string>

namespace beast_torch {

at::Tensor Gemm(const at::Tensor& a, const at::Tensor& b);
at::Tensor Linear(const at::Tensor& x, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias);
std::string ExplainGemm(const at::Tensor& a, const at::Tensor& b);

}  // namespace beast_torch
