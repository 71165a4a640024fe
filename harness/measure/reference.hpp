// CPU reference implementations that kernels are validated against, and the
// deterministic inputs they are fed. Sums are accumulated in double; each
// reference can also produce the same sum over absolute values, which bounds
// the rounding error a float kernel may commit (see validation.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "beast/problem/problem.hpp"

namespace beast::harness {

// Element counts of the conv tensors (layouts as in ReferenceConv2d).
size_t Conv2dInputCount(const beast::Conv2dShape& shape);   // N*C*H*W
size_t Conv2dFilterCount(const beast::Conv2dShape& shape);  // K*(C/groups)*R*S
size_t Conv2dOutputCount(const beast::Conv2dShape& shape);  // N*K*P*Q
// Terms summed into each output: (C/groups)*R*S products, plus the bias when
// there is one — the L of the error bound that Validate checks against.
int64_t Conv2dReductionLength(const beast::Conv2dShape& shape);

// Forward 2D convolution (cross-correlation, as in cuDNN and ONNX) with
// stride, symmetric zero padding, dilation and groups:
//   NCHW: x[N][C][H][W], w[K][C/groups][R][S], y[N][K][P][Q]
//   NHWC: x[N][H][W][C], w[K][R][S][C/groups], y[N][P][Q][K]
// Output channel k reads input channels of group k / (K/groups). `bias`
// (K values) may be null. `abs_y`, when not null, receives the same
// convolution over |x|, |w| and |bias|. Throws Error(kBadArgument) when C or K
// is not a multiple of groups or the output would be empty.
void ReferenceConv2d(const beast::Conv2dShape& shape, const float* x, const float* w,
                     const float* bias, float* y, float* abs_y);
// The same with the double sums kept (the reference of an f64 kernel).
void ReferenceConv2d(const beast::Conv2dShape& shape, const float* x, const float* w,
                     const float* bias, double* y, double* abs_y);

// GEMM C = sum_k A(m,k) B(k,n), C being M x N, A stored M x K (K x M when
// trans_a) and B stored K x N (N x K when trans_b), every matrix row-major,
// or column-major when shape.col_major. `abs_c`, when not null, receives the
// same product over |A| and |B|.
void ReferenceGemm(const beast::GemmShape& shape, const float* a, const float* b, float* c,
                   float* abs_c);
// The same with the double sums kept (the reference of an f64 kernel).
void ReferenceGemm(const beast::GemmShape& shape, const float* a, const float* b, double* c,
                   double* abs_c);

// `count` values uniform in [-1, 1), each a multiple of 2^-23, from a
// splitmix64 stream seeded with `seed`. Integer arithmetic only, so every
// platform and compiler produces the same values.
std::vector<float> RandomInputs(size_t count, uint64_t seed);

}  // namespace beast::harness
