// Validation that knows the algorithm (issue 20): Winograd F(m x m, 3 x 3)
// computed in float (the kernel's arithmetic, here on the CPU) passes the
// bound of harness/measure/winograd_bound.hpp on every ONNX golden case it
// computes, for m = 4 and m = 2; one element wrong by a few times its
// tolerance fails, alone; the bound is never below the direct one; and
// shapes Winograd does not compute are refused.
#include "harness/measure/winograd_bound.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/measure/reference.hpp"
#include "harness/measure/validation.hpp"
#include "support/sweep_cases.hpp"

namespace beast::harness {
namespace {

// The transforms of F(m x m, 3 x 3), signed (Lavin & Gray).
struct Transforms {
  int m, a;
  std::vector<float> bt, g, at;
};

Transforms Of(int m) {
  if (m == 2)
    return {2,
            4,
            {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1},
            {1, 0, 0, 0.5f, 0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0, 0, 1},
            {1, 1, 1, 0, 0, 1, -1, -1}};
  return {4,
          6,
          {4, 0,  -5, 0, 1, 0, 0, -4, -4, 1,  1, 0, 0, 4, -4, -1, 1, 0,
           0, -2, -1, 2, 1, 0, 0, 2,  -1, -2, 1, 0, 0, 4, 0,  -5, 0, 1},
          {1.0f / 4, 0, 0, -1.0f / 6, -1.0f / 6, -1.0f / 6, -1.0f / 6, 1.0f / 6, -1.0f / 6,
           1.0f / 24, 1.0f / 12, 1.0f / 6, 1.0f / 24, -1.0f / 12, 1.0f / 6, 0, 0, 1},
          {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0, 0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1}};
}

// Out = L In R^T in float, L rows x n, In n x c, R cols x c.
std::vector<float> Sandwich(const std::vector<float>& l, int rows, int n,
                            const std::vector<float>& in, int c, const std::vector<float>& r,
                            int cols) {
  std::vector<float> tmp(static_cast<size_t>(rows * c)), out(static_cast<size_t>(rows * cols));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < c; ++j) {
      float sum = 0;
      for (int q = 0; q < n; ++q) sum += l[i * n + q] * in[q * c + j];
      tmp[i * c + j] = sum;
    }
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      float sum = 0;
      for (int q = 0; q < c; ++q) sum += tmp[i * c + q] * r[j * c + q];
      out[i * cols + j] = sum;
    }
  return out;
}

// Winograd F(m x m, 3 x 3) of an NCHW problem, in float.
std::vector<float> WinogradInFloat(const Conv2dShape& s, const std::vector<float>& x,
                                   const std::vector<float>& w, const std::vector<float>& b,
                                   int m) {
  const Transforms t = Of(m);
  const int a = t.a;
  const int64_t P = s.OutH(), Q = s.OutW(), CG = s.c / s.groups, KG = s.k / s.groups;
  std::vector<float> y(static_cast<size_t>(s.n * s.k * P * Q));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t k = 0; k < s.k; ++k)
      for (int64_t th = 0; th < P; th += m)
        for (int64_t tw = 0; tw < Q; tw += m) {
          std::vector<float> acc(static_cast<size_t>(a * a), 0.0f);
          for (int64_t c = 0; c < CG; ++c) {
            const int64_t ci = (k / KG) * CG + c;
            std::vector<float> d(static_cast<size_t>(a * a)), g(9);
            for (int i = 0; i < a; ++i)
              for (int j = 0; j < a; ++j) {
                const int64_t h = th - s.pad_h + i, ww = tw - s.pad_w + j;
                d[i * a + j] = h < 0 || h >= s.h || ww < 0 || ww >= s.w
                                   ? 0.0f
                                   : x[static_cast<size_t>(((n * s.c + ci) * s.h + h) * s.w + ww)];
              }
            for (int i = 0; i < 9; ++i) g[i] = w[static_cast<size_t>((k * CG + c) * 9 + i)];
            const std::vector<float> v = Sandwich(t.bt, a, a, d, a, t.bt, a);
            const std::vector<float> u = Sandwich(t.g, a, 3, g, 3, t.g, a);
            for (int i = 0; i < a * a; ++i) acc[i] += u[i] * v[i];
          }
          const std::vector<float> out = Sandwich(t.at, m, a, acc, a, t.at, m);
          for (int i = 0; i < m && th + i < P; ++i)
            for (int j = 0; j < m && tw + j < Q; ++j)
              y[static_cast<size_t>(((n * s.k + k) * P + th + i) * Q + tw + j)] =
                  out[i * m + j] + (s.bias ? b[static_cast<size_t>(k)] : 0.0f);
        }
  return y;
}

std::vector<testing::GoldenConv> WinogradCases() {
  std::vector<testing::GoldenConv> out;
  for (testing::GoldenConv& g : testing::LoadGoldenConvs(std::string(BEAST_TEST_SOURCE_DIR) +
                                                         "/tests/data/onnx_conv_cases.txt")) {
    const Conv2dShape& s = g.shape;
    if (s.r == 3 && s.s == 3 && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
        s.dilation_w == 1)
      out.push_back(std::move(g));
  }
  return out;
}

std::vector<float> BoundOf(const testing::GoldenConv& g, int m) {
  const std::vector<double> bound =
      WinogradAbsBound(g.shape, g.x.data(), g.w.data(), g.shape.bias ? g.b.data() : nullptr, m);
  return std::vector<float>(bound.begin(), bound.end());
}

TEST(WinogradBound, AcceptsWinogradInFloatOnEveryGoldenCaseItComputes) {
  const std::vector<testing::GoldenConv> cases = WinogradCases();
  ASSERT_EQ(cases.size(), 5u);
  for (int m : {2, 4}) {
    for (const testing::GoldenConv& g : cases) {
      const std::vector<float> y = WinogradInFloat(g.shape, g.x, g.w, g.b, m);
      const std::vector<float> bound = BoundOf(g, m);
      ASSERT_EQ(bound.size(), g.y.size());
      const ValidationResult v = Validate(y.data(), g.y.data(), bound.data(), y.size(),
                                          WinogradReductionLength(g.shape, m));
      EXPECT_TRUE(v.ok) << g.name << " m=" << m << ": max_error " << v.max_error;
      EXPECT_EQ(v.fail_count, 0);
    }
  }
}

TEST(WinogradBound, IsNeverBelowTheDirectBound) {
  for (const testing::GoldenConv& g : WinogradCases()) {
    std::vector<float> ref(g.y.size()), abs_ref(g.y.size());
    ReferenceConv2d(g.shape, g.x.data(), g.w.data(), g.shape.bias ? g.b.data() : nullptr,
                    ref.data(), abs_ref.data());
    for (int m : {2, 4}) {
      const std::vector<float> bound = BoundOf(g, m);
      for (size_t i = 0; i < bound.size(); ++i)
        ASSERT_GE(bound[i], abs_ref[i] * (1 - 1e-6f)) << g.name << " m=" << m << " output " << i;
      EXPECT_GT(WinogradReductionLength(g.shape, m), Conv2dReductionLength(g.shape));
    }
  }
}

TEST(WinogradBound, RejectsOneWrongElement) {
  const std::vector<testing::GoldenConv> cases = WinogradCases();
  const testing::GoldenConv& g = cases.back();  // the depthwise case with a multiplier
  std::vector<float> y = WinogradInFloat(g.shape, g.x, g.w, g.b, 4);
  const std::vector<float> bound = BoundOf(g, 4);
  const int64_t length = WinogradReductionLength(g.shape, 4);
  const size_t wrong = y.size() / 2;
  // Three times what the element may be off by.
  y[wrong] += 3 * static_cast<float>(kValidationFactor * length * kUnitRoundoff32 * bound[wrong] +
                                     kValidationTiny);
  const ValidationResult v = Validate(y.data(), g.y.data(), bound.data(), y.size(), length);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.fail_count, 1);
  EXPECT_EQ(v.worst_index, static_cast<int64_t>(wrong));
}

TEST(WinogradBound, RefusesWhatWinogradDoesNotCompute) {
  Conv2dShape s;
  s.c = s.k = 4;
  s.h = s.w = 8;
  s.r = s.s = 3;
  const std::vector<float> x(4 * 64, 1.0f), w(4 * 4 * 9, 1.0f);
  EXPECT_THROW(WinogradAbsBound(s, x.data(), w.data(), nullptr, 3), Error);
  s.stride_h = 2;
  EXPECT_THROW(WinogradAbsBound(s, x.data(), w.data(), nullptr, 4), Error);
  s.stride_h = 1;
  s.r = s.s = 1;
  EXPECT_THROW(WinogradReductionLength(s, 2), Error);
  EXPECT_TRUE(WinogradTileSupported(4));
  EXPECT_FALSE(WinogradTileSupported(6));
}

}  // namespace
}  // namespace beast::harness
