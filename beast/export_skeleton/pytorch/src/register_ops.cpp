// The operators' schemas, as torch.ops.beast.* (and the prepared
// convolution's class, torch.classes.beast.PreparedConv2d). One kernel each serves every
// device (it dispatches on the tensor's device itself) and refuses inputs
// that need a gradient; beast_torch's Python functions add the backward.
#include <torch/library.h>

#include "conv2d_op.h"
#include "gemm_op.h"
#include "prepared_conv2d.h"

TORCH_LIBRARY(beast, m) {
  m.class_<beast_torch::PreparedConv2d>("PreparedConv2d")
      .def("forward", &beast_torch::PreparedConv2d::Forward);
  m.def(
      "conv2d_prepare(Tensor x, Tensor weight, Tensor? bias=None, int[2] stride=1, "
      "int[2] padding=0, int[2] dilation=1, int groups=1) -> "
      "__torch__.torch.classes.beast.PreparedConv2d",
      &beast_torch::PrepareConv2d);
  m.def(
      "conv2d(Tensor x, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, "
      "int[2] dilation=1, int groups=1) -> Tensor",
      &beast_torch::Conv2d);
  m.def(
      "explain_conv2d(Tensor x, Tensor weight, Tensor? bias=None, int[2] stride=1, "
      "int[2] padding=0, int[2] dilation=1, int groups=1) -> str",
      &beast_torch::ExplainConv2d);
  m.def("gemm(Tensor a, Tensor b) -> Tensor", &beast_torch::Gemm);
  m.def("linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor", &beast_torch::Linear);
  m.def("explain_gemm(Tensor a, Tensor b) -> str", &beast_torch::ExplainGemm);
}
