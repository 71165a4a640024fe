// The error bound of a Winograd convolution (winograd_bound.hpp).
#include "harness/measure/winograd_bound.hpp"

#include <cmath>

#include "beast/core/error.hpp"

namespace beast::harness {
namespace {

// |B^T|, |G| and |A^T| of F(2, 3) and F(4, 3), row-major.
struct AbsTransforms {
  int m, alpha;
  std::vector<double> bt;  // alpha x alpha
  std::vector<double> g;   // alpha x 3
  std::vector<double> at;  // m x alpha
};

AbsTransforms TransformsOf(int m) {
  if (m == 2) {
    return {2,
            4,
            {1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1},
            {1, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 1},
            {1, 1, 1, 0, 0, 1, 1, 1}};
  }
  return {4,
          6,
          {4, 0, 5, 0, 1, 0, 0, 4, 4, 1, 1, 0, 0, 4, 4, 1, 1, 0,
           0, 2, 1, 2, 1, 0, 0, 2, 1, 2, 1, 0, 0, 4, 0, 5, 0, 1},
          {1.0 / 4, 0, 0, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 24, 1.0 / 12,
           1.0 / 6, 1.0 / 24, 1.0 / 12, 1.0 / 6, 0, 0, 1},
          {1, 1, 1, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 4, 4, 0, 0, 1, 1, 8, 8, 1}};
}

void CheckShape(const beast::Conv2dShape& s, int m) {
  if (!WinogradTileSupported(m))
    throw Error(ErrorCode::kBadArgument,
                "Winograd output tile " + std::to_string(m) + " is not one of 2 and 4");
  if (s.r != 3 || s.s != 3 || s.stride_h != 1 || s.stride_w != 1 || s.dilation_h != 1 ||
      s.dilation_w != 1)
    throw Error(ErrorCode::kBadArgument,
                "Winograd F(m x m, 3 x 3) computes 3 x 3 filters of stride and dilation 1");
}

}  // namespace

bool WinogradTileSupported(int m) { return m == 2 || m == 4; }

int64_t WinogradReductionLength(const beast::Conv2dShape& s, int m) {
  CheckShape(s, m);
  return s.c / s.groups + 4 * (m + 1) + 4 + 4 + (s.bias ? 1 : 0);
}

std::vector<double> WinogradAbsBound(const beast::Conv2dShape& s, const float* x, const float* w,
                                     const float* bias, int m) {
  CheckShape(s, m);
  const AbsTransforms t = TransformsOf(m);
  const int a = t.alpha;
  const int64_t P = s.OutH(), Q = s.OutW(), CG = s.c / s.groups, KG = s.k / s.groups;
  const bool nhwc = s.layout == Layout::kNHWC;
  auto x_at = [&](int64_t n, int64_t c, int64_t h, int64_t ww) -> double {
    if (h < 0 || h >= s.h || ww < 0 || ww >= s.w) return 0;
    const int64_t i =
        nhwc ? ((n * s.h + h) * s.w + ww) * s.c + c : ((n * s.c + c) * s.h + h) * s.w + ww;
    return std::fabs(static_cast<double>(x[i]));
  };
  auto w_at = [&](int64_t k, int64_t c, int64_t r, int64_t q) -> double {
    const int64_t i = nhwc ? ((k * 3 + r) * 3 + q) * CG + c : ((k * CG + c) * 3 + r) * 3 + q;
    return std::fabs(static_cast<double>(w[i]));
  };
  // |G||g||G^T| of every filter (K x CG x alpha x alpha).
  std::vector<double> u(static_cast<size_t>(s.k * CG * a * a));
  for (int64_t k = 0; k < s.k; ++k) {
    for (int64_t c = 0; c < CG; ++c) {
      double gt[6][3];  // |G| |g|
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < 3; ++j) {
          gt[i][j] = 0;
          for (int r = 0; r < 3; ++r) gt[i][j] += t.g[i * 3 + r] * w_at(k, c, r, j);
        }
      double* out = &u[static_cast<size_t>((k * CG + c) * a * a)];
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < a; ++j) {
          double sum = 0;
          for (int q = 0; q < 3; ++q) sum += gt[i][q] * t.g[j * 3 + q];
          out[i * a + j] = sum;
        }
    }
  }
  std::vector<double> bound(static_cast<size_t>(s.n * s.k * P * Q));
  std::vector<double> v(static_cast<size_t>(CG * a * a));  // |B^T||d||B| of one tile, per channel
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t th = 0; th < P; th += m) {
      for (int64_t tw = 0; tw < Q; tw += m) {
        for (int64_t grp = 0; grp < s.groups; ++grp) {
          for (int64_t c = 0; c < CG; ++c) {
            double bd[6][6];  // |B^T| |d|
            for (int i = 0; i < a; ++i)
              for (int j = 0; j < a; ++j) {
                bd[i][j] = 0;
                for (int q = 0; q < a; ++q)
                  bd[i][j] +=
                      t.bt[i * a + q] * x_at(n, grp * CG + c, th - s.pad_h + q, tw - s.pad_w + j);
              }
            double* out = &v[static_cast<size_t>(c * a * a)];
            for (int i = 0; i < a; ++i)
              for (int j = 0; j < a; ++j) {
                double sum = 0;
                for (int q = 0; q < a; ++q) sum += bd[i][q] * t.bt[j * a + q];
                out[i * a + j] = sum;
              }
          }
          for (int64_t kk = 0; kk < KG; ++kk) {
            const int64_t k = grp * KG + kk;
            double mm[6][6] = {};
            for (int64_t c = 0; c < CG; ++c) {
              const double* uk = &u[static_cast<size_t>((k * CG + c) * a * a)];
              const double* vc = &v[static_cast<size_t>(c * a * a)];
              for (int i = 0; i < a; ++i)
                for (int j = 0; j < a; ++j) mm[i][j] += uk[i * a + j] * vc[i * a + j];
            }
            double am[4][6];  // |A^T| M
            for (int i = 0; i < m; ++i)
              for (int j = 0; j < a; ++j) {
                am[i][j] = 0;
                for (int q = 0; q < a; ++q) am[i][j] += t.at[i * a + q] * mm[q][j];
              }
            const double b = bias ? std::fabs(static_cast<double>(bias[k])) : 0;
            for (int i = 0; i < m && th + i < P; ++i)
              for (int j = 0; j < m && tw + j < Q; ++j) {
                double sum = b;
                for (int q = 0; q < a; ++q) sum += am[i][q] * t.at[j * a + q];
                const int64_t p = th + i, qq = tw + j;
                const int64_t o =
                    nhwc ? ((n * P + p) * Q + qq) * s.k + k : ((n * s.k + k) * P + p) * Q + qq;
                bound[static_cast<size_t>(o)] = sum;
              }
          }
        }
      }
    }
  }
  return bound;
}

}  // namespace beast::harness
