// CPU reference convolution and GEMM (double accumulation) and the portable
// input generator.
#include "harness/measure/reference.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/measure/parallel_rows.hpp"

namespace beast::harness {
namespace {

using beast::Conv2dShape;

void CheckConvShape(const Conv2dShape& s) {
  if (s.n < 1 || s.c < 1 || s.h < 1 || s.w < 1 || s.k < 1 || s.r < 1 || s.s < 1 || s.stride_h < 1 ||
      s.stride_w < 1 || s.dilation_h < 1 || s.dilation_w < 1 || s.pad_h < 0 || s.pad_w < 0) {
    throw Error(ErrorCode::kBadArgument,
                "conv reference: sizes, strides and dilations must be positive, pads >= 0");
  }
  if (s.groups < 1 || s.c % s.groups != 0 || s.k % s.groups != 0) {
    throw Error(ErrorCode::kBadArgument,
                "conv reference: C=" + std::to_string(s.c) + " and K=" + std::to_string(s.k) +
                    " must be multiples of groups=" + std::to_string(s.groups));
  }
  // Checked before dividing by the stride: integer division truncates toward
  // zero, so a filter one tap too large would still give OutH() == 1.
  if (s.h + 2 * s.pad_h - s.dilation_h * (s.r - 1) - 1 < 0 ||
      s.w + 2 * s.pad_w - s.dilation_w * (s.s - 1) - 1 < 0) {
    throw Error(ErrorCode::kBadArgument, "conv reference: the output would be empty");
  }
}

std::vector<float> Absolute(const float* data, size_t count) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = std::fabs(data[i]);
  return out;
}

// NCHW convolution. The innermost loop runs along one output row, reading an
// input row with a fixed stride, so both stay in cache; the valid q range of
// each filter column is computed once instead of testing every tap.
template <typename Out>
void ConvNchw(const Conv2dShape& s, const float* x, const float* w, const float* bias, Out* y) {
  const int64_t p_count = s.OutH(), q_count = s.OutW();
  const int64_t cg = s.c / s.groups, kg = s.k / s.groups;
  std::vector<int64_t> q_lo(s.s), q_hi(s.s);
  for (int64_t fs = 0; fs < s.s; ++fs) {
    q_lo[fs] = q_count;
    q_hi[fs] = 0;
    for (int64_t q = 0; q < q_count; ++q) {
      int64_t iw = q * s.stride_w - s.pad_w + fs * s.dilation_w;
      if (iw < 0 || iw >= s.w) continue;
      if (q < q_lo[fs]) q_lo[fs] = q;
      q_hi[fs] = q + 1;
    }
  }
  // Each (image, output channel) plane is one row of work for the threads,
  // a thread getting at least 2^20 multiply-adds.
  const int64_t plane_work = std::max<int64_t>(1, cg * s.r * s.s * p_count * q_count);
  ParallelRows(s.n * s.k, std::max<int64_t>(1, (1 << 20) / plane_work),
               [&](int64_t first, int64_t last) {
                 std::vector<double> acc(p_count * q_count);
                 for (int64_t nk = first; nk < last; ++nk) {
                   const int64_t n = nk / s.k, k = nk % s.k;
                   const int64_t g = k / kg;
                   std::fill(acc.begin(), acc.end(), bias ? static_cast<double>(bias[k]) : 0.0);
                   for (int64_t ci = 0; ci < cg; ++ci) {
                     const float* plane = x + (n * s.c + g * cg + ci) * s.h * s.w;
                     const float* taps = w + (k * cg + ci) * s.r * s.s;
                     for (int64_t fr = 0; fr < s.r; ++fr) {
                       for (int64_t fs = 0; fs < s.s; ++fs) {
                         const double tap = taps[fr * s.s + fs];
                         const int64_t column = fs * s.dilation_w - s.pad_w;
                         for (int64_t p = 0; p < p_count; ++p) {
                           const int64_t ih = p * s.stride_h - s.pad_h + fr * s.dilation_h;
                           if (ih < 0 || ih >= s.h) continue;
                           const int64_t base = ih * s.w + column;
                           double* out = acc.data() + p * q_count;
                           for (int64_t q = q_lo[fs]; q < q_hi[fs]; ++q) {
                             out[q] += tap * static_cast<double>(plane[base + q * s.stride_w]);
                           }
                         }
                       }
                     }
                   }
                   Out* dst = y + (n * s.k + k) * p_count * q_count;
                   for (int64_t i = 0; i < p_count * q_count; ++i)
                     dst[i] = static_cast<Out>(acc[i]);
                 }
               });
}

// Copies a [A][B][C] array to [A][C][B] (the NHWC <-> NCHW moves, with B or
// C the merged spatial dimensions).
template <typename T>
std::vector<T> SwapLastTwo(const T* in, int64_t a, int64_t b, int64_t c) {
  std::vector<T> out(a * b * c);
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < b; ++j) {
      for (int64_t l = 0; l < c; ++l) out[(i * c + l) * b + j] = in[(i * b + j) * c + l];
    }
  }
  return out;
}

template <typename Out>
void Conv(const Conv2dShape& s, const float* x, const float* w, const float* bias, Out* y) {
  if (s.layout == beast::Layout::kNCHW) {
    ConvNchw(s, x, w, bias, y);
    return;
  }
  // NHWC is the NCHW computation on transposed copies: one code path to trust.
  const int64_t cg = s.c / s.groups;
  std::vector<float> x_nchw = SwapLastTwo(x, s.n, s.h * s.w, s.c);
  std::vector<float> w_kcrs = SwapLastTwo(w, s.k, s.r * s.s, cg);
  std::vector<Out> y_nkpq(Conv2dOutputCount(s));
  ConvNchw(s, x_nchw.data(), w_kcrs.data(), bias, y_nkpq.data());
  std::vector<Out> y_npqk = SwapLastTwo(y_nkpq.data(), s.n, s.k, s.OutH() * s.OutW());
  std::copy(y_npqk.begin(), y_npqk.end(), y);
}

template <typename Out>
void Gemm(const beast::GemmShape& s, const float* a, const float* b, Out* c) {
  // A column-major matrix is its transpose stored row-major: reading A, B
  // column-major flips whether they are stored transposed, and C is written
  // transposed.
  const bool a_t = s.trans_a != s.col_major;
  const bool b_t = s.trans_b != s.col_major;
  // B as KxN row-major, so the inner loop streams one row of it.
  std::vector<float> b_kn;
  const float* b_rows = b;
  if (b_t) {
    b_kn = SwapLastTwo(b, 1, s.n, s.k);
    b_rows = b_kn.data();
  }
  // Tiles of C, kRows x kCols: each stretch of a B row read serves kRows
  // rows of sums (B is read M/kRows times, not M), and the tile's sums stay
  // in the L1 cache. The row blocks are the threads' rows of work. Each sum
  // still runs over k in order, as the one-row loop did.
  constexpr int64_t kRows = 8, kCols = 256;
  const int64_t blocks = (s.m + kRows - 1) / kRows;
  const int64_t min_blocks = std::max<int64_t>(1, (1 << 20) / std::max<int64_t>(1, s.n * s.k));
  ParallelRows(blocks, min_blocks, [&](int64_t first, int64_t last) {
    std::vector<double> acc(kRows * kCols);
    for (int64_t block = first; block < last; ++block) {
      const int64_t m0 = block * kRows, rows = std::min(kRows, s.m - m0);
      for (int64_t n0 = 0; n0 < s.n; n0 += kCols) {
        const int64_t cols = std::min(kCols, s.n - n0);
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t kk = 0; kk < s.k; ++kk) {
          const float* row = b_rows + kk * s.n + n0;
          for (int64_t i = 0; i < rows; ++i) {
            const int64_t m = m0 + i;
            const double am = a_t ? a[kk * s.m + m] : a[m * s.k + kk];
            double* sums = acc.data() + i * kCols;
            for (int64_t n = 0; n < cols; ++n) sums[n] += am * static_cast<double>(row[n]);
          }
        }
        for (int64_t i = 0; i < rows; ++i) {
          const int64_t m = m0 + i;
          for (int64_t n = 0; n < cols; ++n)
            c[s.col_major ? (n0 + n) * s.m + m : m * s.n + n0 + n] =
                static_cast<Out>(acc[i * kCols + n]);
        }
      }
    }
  });
}

}  // namespace

size_t Conv2dInputCount(const Conv2dShape& s) { return s.n * s.c * s.h * s.w; }

size_t Conv2dFilterCount(const Conv2dShape& s) {
  return s.k * (s.groups > 0 ? s.c / s.groups : 0) * s.r * s.s;
}

size_t Conv2dOutputCount(const Conv2dShape& s) { return s.n * s.k * s.OutH() * s.OutW(); }

int64_t Conv2dReductionLength(const Conv2dShape& s) {
  return (s.groups > 0 ? s.c / s.groups : 0) * s.r * s.s + (s.bias ? 1 : 0);
}

namespace {

template <typename Out>
void ReferenceConv2dInto(const Conv2dShape& shape, const float* x, const float* w,
                         const float* bias, Out* y, Out* abs_y) {
  CheckConvShape(shape);
  Conv(shape, x, w, bias, y);
  if (abs_y == nullptr) return;
  std::vector<float> abs_x = Absolute(x, Conv2dInputCount(shape));
  std::vector<float> abs_w = Absolute(w, Conv2dFilterCount(shape));
  std::vector<float> abs_bias;
  if (bias) abs_bias = Absolute(bias, shape.k);
  Conv(shape, abs_x.data(), abs_w.data(), bias ? abs_bias.data() : nullptr, abs_y);
}

template <typename Out>
void ReferenceGemmInto(const beast::GemmShape& shape, const float* a, const float* b, Out* c,
                       Out* abs_c) {
  if (shape.m < 1 || shape.n < 1 || shape.k < 1) {
    throw Error(ErrorCode::kBadArgument, "gemm reference: M, N and K must be positive");
  }
  Gemm(shape, a, b, c);
  if (abs_c == nullptr) return;
  std::vector<float> abs_a = Absolute(a, shape.m * shape.k);
  std::vector<float> abs_b = Absolute(b, shape.k * shape.n);
  Gemm(shape, abs_a.data(), abs_b.data(), abs_c);
}

}  // namespace

void ReferenceConv2d(const Conv2dShape& shape, const float* x, const float* w, const float* bias,
                     float* y, float* abs_y) {
  ReferenceConv2dInto(shape, x, w, bias, y, abs_y);
}

void ReferenceConv2d(const Conv2dShape& shape, const float* x, const float* w, const float* bias,
                     double* y, double* abs_y) {
  ReferenceConv2dInto(shape, x, w, bias, y, abs_y);
}

void ReferenceGemm(const beast::GemmShape& shape, const float* a, const float* b, float* c,
                   float* abs_c) {
  ReferenceGemmInto(shape, a, b, c, abs_c);
}

void ReferenceGemm(const beast::GemmShape& shape, const float* a, const float* b, double* c,
                   double* abs_c) {
  ReferenceGemmInto(shape, a, b, c, abs_c);
}

std::vector<float> RandomInputs(size_t count, uint64_t seed) {
  std::vector<float> values(count);
  uint64_t state = seed;
  for (size_t i = 0; i < count; ++i) {
    // splitmix64 (Steele, Lea, Flood 2014): one add and three xor-multiply
    // mixes per value.
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    // The top 24 bits, scaled to [0, 2): exact in float, then shifted.
    values[i] = static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
  }
  return values;
}

}  // namespace beast::harness
