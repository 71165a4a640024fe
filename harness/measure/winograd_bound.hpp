// The error bound of a Winograd convolution F(m x m, 3 x 3), against which
// conv2d/winograd kernels are validated instead of the direct sum's.
//
// A Winograd kernel computes each m x m output tile of one image and output
// channel as  Y = A^T [ sum_c (G g_c G^T) .* (B^T d_c B) ] A,  d_c the
// (m+2) x (m+2) input patch of channel c (zero outside the image), g_c the
// 3 x 3 filter, with the transform matrices of Lavin & Gray (2016; points 0,
// +-1 for m = 2 and 0, +-1, +-2 for m = 4). In exact arithmetic that is the
// direct sum; in float each step is a product of matrices, whose rounding
// error is bounded componentwise (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., 3.5: |fl(AB) - AB| <= gamma_n |A||B|, and
// chains of products add their n) by
//     |y_hat - y| <= L_W u S,
//     S = |A^T| [ sum_c (|G||g_c||G^T|) .* (|B^T||d_c||B|) ] |A|,
//     L_W = C/groups + 4 (m + 1) + 2 * 2 + 4  (+1 with a bias),
// where C/groups counts the channel sum, 2 (m + 1) each of the two 1-D
// passes of the input and output transforms (m + 2 terms each), 2 * 2 the
// filter transform's (3 terms each), and 4 the elementwise product and the
// roundings of G's inexact constants (1/6, 1/12, 1/24). S is the direct
// bound's sum over |x| |w| with the absolute values taken through the
// transforms: S >= the direct abs sum, and S / abs_ref is the factor the
// transforms cost, growing with the matrices' entries (|A^T| up to 8 and
// |B^T| up to 5 for m = 4 against 1 for m = 2). A bound from the matrices'
// norms alone (kappa = ||A^T|| ||G|| ||B^T||, squared in 2-D: 81 for m = 2,
// 36100 for m = 4) times the direct L u abs_ref would allow a relative error
// of order one on F(4 x 4) — an all-zero output would pass — so the bound is
// computed per output from the data, like the direct one.
#pragma once

#include <cstdint>
#include <vector>

#include "beast/problem/problem.hpp"

namespace beast::harness {

// Output tiles a Winograd kernel validates with: 2 and 4.
bool WinogradTileSupported(int m);

// L_W above for `shape` (3 x 3, stride 1, dilation 1) and tile m.
int64_t WinogradReductionLength(const beast::Conv2dShape& shape, int m);

// S above for every output of `shape`, in its layout's output order (tiles
// start at output row and column 0, every m). `bias` (K values) may be
// null. Throws Error(kBadArgument) for a shape Winograd F(m x m, 3 x 3) does
// not compute (filter not 3 x 3, stride or dilation not 1) or an m that is
// not 2 or 4.
std::vector<double> WinogradAbsBound(const beast::Conv2dShape& shape, const float* x,
                                     const float* w, const float* bias, int m);

}  // namespace beast::harness
