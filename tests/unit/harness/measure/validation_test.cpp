// Validation against the reference: the float error bound scaled by the
// reduction length, exact pass/fail at its edge, NaN and infinity, and the
// outputs' root mean square on the probabilistic scale (a dropped term).
#include "harness/measure/validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "beast/core/error.hpp"

namespace beast::harness {
namespace {

constexpr double kU = 0x1p-24;  // float unit roundoff

TEST(Validate, ExactMatchPasses) {
  std::vector<float> ref = {1, -2, 3, 0};
  std::vector<float> abs_ref = {1, 2, 3, 0};
  ValidationResult result = Validate(ref.data(), ref.data(), abs_ref.data(), 4, 10);
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.max_error, 0.0);
  EXPECT_EQ(result.worst_index, 0);
  EXPECT_EQ(result.nan_count, 0);
  EXPECT_EQ(result.fail_count, 0);
}

TEST(Validate, ToleranceScalesWithReductionLength) {
  // L = 10: element 1 (abs_ref 2) may be off by 2 * 10 * u * 2 = 40u.
  std::vector<float> ref = {1, -2, 3, 0};
  std::vector<float> abs_ref = {1, 2, 3, 0};
  std::vector<float> y = ref;
  y[1] = static_cast<float>(-2 + 32 * kU);  // off by 32u: 32u / (10u * 2) = 1.6
  ValidationResult inside = Validate(y.data(), ref.data(), abs_ref.data(), 4, 10);
  EXPECT_TRUE(inside.ok);
  EXPECT_DOUBLE_EQ(inside.max_error, 1.6);
  EXPECT_EQ(inside.worst_index, 1);

  y[1] = static_cast<float>(-2 + 48 * kU);  // off by 48u: 2.4 > 2
  ValidationResult outside = Validate(y.data(), ref.data(), abs_ref.data(), 4, 10);
  EXPECT_FALSE(outside.ok);
  EXPECT_DOUBLE_EQ(outside.max_error, 2.4);
  EXPECT_EQ(outside.worst_index, 1);
  EXPECT_EQ(outside.fail_count, 1);

  // The same error passes when the sum is 20 terms long: 48u / (20u * 2) = 1.2.
  ValidationResult longer = Validate(y.data(), ref.data(), abs_ref.data(), 4, 20);
  EXPECT_TRUE(longer.ok);
  EXPECT_DOUBLE_EQ(longer.max_error, 1.2);
}

TEST(Validate, BoundUsesAbsoluteSumNotResult) {
  // ref 0 from cancelling terms (abs_ref 4): an error of 64u passes for L = 10
  // because the bound is 2 * 10u * 4 = 80u, however small the result is.
  std::vector<float> ref = {0}, abs_ref = {4};
  std::vector<float> y = {static_cast<float>(64 * kU)};
  ValidationResult result = Validate(y.data(), ref.data(), abs_ref.data(), 1, 10);
  EXPECT_TRUE(result.ok);
  EXPECT_DOUBLE_EQ(result.max_error, 1.6);
}

TEST(Validate, ZeroSumsAllowOnlyTinySlack) {
  std::vector<float> ref = {0, 0}, abs_ref = {0, 0};
  std::vector<float> y = {1e-31f, 0};
  ValidationResult tiny = Validate(y.data(), ref.data(), abs_ref.data(), 2, 1);
  EXPECT_TRUE(tiny.ok);
  EXPECT_NEAR(tiny.max_error, 0.1, 1e-7);  // 1e-31f / 1e-30
  y[1] = 1e-6f;
  ValidationResult wrong = Validate(y.data(), ref.data(), abs_ref.data(), 2, 1);
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.worst_index, 1);
  EXPECT_EQ(wrong.fail_count, 1);
}

TEST(Validate, NanAndInfinityFail) {
  std::vector<float> ref = {1, 2, 3, 4, 5};
  std::vector<float> abs_ref = {1, 2, 3, 4, 5};
  std::vector<float> y = {1, 2.5f, std::numeric_limits<float>::quiet_NaN(), 4,
                          -std::numeric_limits<float>::infinity()};
  ValidationResult result = Validate(y.data(), ref.data(), abs_ref.data(), 5, 100);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.nan_count, 2);
  EXPECT_EQ(result.fail_count, 3);   // 2.5 vs 2 fails too
  EXPECT_EQ(result.worst_index, 2);  // the first non-finite element
  EXPECT_EQ(result.max_error, std::numeric_limits<double>::infinity());
}

TEST(Validate, F64AcceptsARoundedDoubleSumAndRejectsOneWrongElement) {
  // Sums of 1000 terms: a correct f64 kernel differs from the reference by
  // a few ulps of double, far inside 2 L 2^-53 |sum|; an error that a float
  // kernel could make (2^-24 relative) is far outside it.
  const int64_t length = 1000;
  std::vector<double> ref = {1.0, -3.5, 123.25, 0.0};
  std::vector<double> abs_ref = {10.0, 20.0, 300.0, 5.0};
  std::vector<double> y = ref;
  for (double& v : y) v = std::nextafter(v, 1e9);  // one ulp off each
  ValidationResult ok = Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length);
  EXPECT_TRUE(ok.ok) << ok.max_error;
  y[2] = ref[2] * (1 + 0x1p-24);
  ValidationResult wrong = Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length);
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.fail_count, 1);
  EXPECT_EQ(wrong.worst_index, 2);
  // The same error passes the f32 bound: the dtype decides.
  std::vector<float> yf(y.begin(), y.end()), rf(ref.begin(), ref.end()),
      af(abs_ref.begin(), abs_ref.end());
  EXPECT_TRUE(Validate(yf.data(), rf.data(), af.data(), yf.size(), length).ok);
  EXPECT_EQ(DescribeWrongResult(wrong, y.data(), ref.data(), y.size()),
            "1 of 4 outputs wrong (0 not finite); worst at 2: got 123.25, expected 123.25");
}

TEST(Validate, StoredF16AndBf16AcceptOneRoundingOfTheirTypeAndRejectOneWrongElement) {
  // Sums of 576 float products (a 64-channel 3x3 convolution) stored in 16
  // bits: the result is the float sum rounded once to the stored type, so a
  // correct f16 output is up to half an f16 ulp (2^-11 relative) from the
  // reference, a bf16 one half a bf16 ulp (2^-8); twice that is wrong.
  const int64_t length = 576;
  const std::vector<float> ref = {1.0f, -3.5f, 123.25f, 0.0f};
  const std::vector<float> abs_ref = {10.0f, 20.0f, 300.0f, 5.0f};
  struct Case {
    StoredRounding rounding;
    double half_ulp;  // relative: 2^-11 for f16, 2^-8 for bf16
  };
  for (const Case& c : {Case{kStoredF16, 0x1p-11}, Case{kStoredBf16, 0x1p-8}}) {
    std::vector<float> y = ref;
    for (float& v : y) v = static_cast<float>(v * (1 + c.half_ulp));  // one rounding off each
    const ValidationResult ok =
        Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length, c.rounding);
    EXPECT_TRUE(ok.ok) << ok.max_error;
    // The same outputs fail the f32 bound: the stored type decides.
    EXPECT_FALSE(Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length).ok);
    // abs_ref[2] = 300 allows 2 (576 u + u_store) 300 (0.31 for f16, 2.4 for
    // bf16) around 123.25; an error of 300 * 4 u_store (1.2, 9.4) is outside.
    y[2] = static_cast<float>(ref[2] + abs_ref[2] * 8 * c.half_ulp);
    const ValidationResult wrong =
        Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length, c.rounding);
    EXPECT_FALSE(wrong.ok);
    EXPECT_EQ(wrong.fail_count, 1);
    EXPECT_EQ(wrong.worst_index, 2);
  }
  // An f16 output in the subnormal range (a multiple of 2^-24) whose exact
  // value is 2^-25 away passes; 2.5 * 2^-24 away, with no scale to excuse
  // it, fails.
  const std::vector<float> tiny_ref = {0x1.8p-24f}, no_scale = {0.0f};
  std::vector<float> y = {0x1p-24f};
  EXPECT_TRUE(Validate(y.data(), tiny_ref.data(), no_scale.data(), 1, 1, kStoredF16).ok);
  y[0] = 0x1p-22f;
  EXPECT_FALSE(Validate(y.data(), tiny_ref.data(), no_scale.data(), 1, 1, kStoredF16).ok);
}

// A math=tf32 kernel's products round both inputs to 10 mantissa bits
// (truncated: up to 2^-10 relative each) before the f32 sum: computed here
// as a tensor core would, 576-term dot products of positive inputs
// truncated to TF32 (each about 2^-10 of its scale low) pass kTf32Inputs and
// fail the exact-f32 bound; one output moved by 4 * 2^-9 of its scale fails
// alone.
TEST(Validate, Tf32AcceptsTruncatedInputsAndRejectsOneWrongElement) {
  const int64_t length = 576;
  auto tf32 = [](float v) {  // truncate to 10 mantissa bits
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    bits &= 0xffffe000u;
    std::memcpy(&v, &bits, 4);
    return v;
  };
  std::vector<float> y, ref, abs_ref;
  uint32_t state = 12345;
  // A fixed stream of values in (0, 1): truncation then shrinks every
  // product, so the errors add up instead of cancelling.
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) * 0x1p-24f + 0x1p-25f;
  };
  for (int out = 0; out < 64; ++out) {
    double exact = 0, abs_sum = 0;
    float sum = 0;
    for (int64_t i = 0; i < length; ++i) {
      const float a = next(), b = next();
      exact += static_cast<double>(a) * b;
      abs_sum += std::fabs(static_cast<double>(a) * b);
      sum += tf32(a) * tf32(b);
    }
    y.push_back(sum);
    ref.push_back(static_cast<float>(exact));
    abs_ref.push_back(static_cast<float>(abs_sum));
  }
  const ValidationResult ok =
      Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length, kTf32Inputs);
  EXPECT_TRUE(ok.ok) << ok.max_error;
  EXPECT_FALSE(Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length).ok);
  y[5] = static_cast<float>(ref[5] + abs_ref[5] * 4 * 0x1p-9);
  const ValidationResult wrong =
      Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length, kTf32Inputs);
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(wrong.fail_count, 1);
  EXPECT_EQ(wrong.worst_index, 5);
}

// Dot products of K random terms in [-1, 1), summed in float in order (as a
// naive kernel sums them), against the double sums; `drop` leaves out each
// sum's last term (an off-by-one loop bound).
struct FloatSums {
  std::vector<float> y, ref, abs_ref;
};
FloatSums SumsOf(int64_t k, size_t outputs, bool drop) {
  FloatSums s;
  uint64_t state = 12345;
  auto next = [&] {  // splitmix64, to [-1, 1)
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
  };
  for (size_t i = 0; i < outputs; ++i) {
    float acc = 0;
    double exact = 0, abs = 0;
    for (int64_t j = 0; j < k; ++j) {
      const float a = next(), b = next();
      if (!(drop && j == k - 1)) acc += a * b;
      exact += static_cast<double>(a) * b;
      abs += std::fabs(static_cast<double>(a) * b);
    }
    s.y.push_back(acc);
    s.ref.push_back(static_cast<float>(exact));
    s.abs_ref.push_back(static_cast<float>(abs));
  }
  return s;
}

TEST(Validate, TheOutputsTogetherCatchADroppedTermTheWorstCasePasses) {
  const int64_t k = 8192;
  const FloatSums right = SumsOf(k, 64, false);
  ValidationResult ok =
      Validate(right.y.data(), right.ref.data(), right.abs_ref.data(), right.y.size(), k);
  EXPECT_TRUE(ok.ok);
  EXPECT_GT(ok.rms_error, 0);
  EXPECT_LT(ok.rms_error, 0.1);  // a right sum sits far inside the probabilistic scale
  const FloatSums dropped = SumsOf(k, 64, true);
  ValidationResult wrong =
      Validate(dropped.y.data(), dropped.ref.data(), dropped.abs_ref.data(), dropped.y.size(), k);
  EXPECT_EQ(wrong.fail_count, 0);  // every output within the worst case
  EXPECT_TRUE(wrong.rms_failed);
  EXPECT_FALSE(wrong.ok);
  EXPECT_GT(wrong.rms_error, 10 * kValidationFactor);
  EXPECT_EQ(DescribeWrongResult(wrong, dropped.y.data(), dropped.ref.data(), dropped.y.size())
                .rfind("outputs wrong on the whole: root mean square error ", 0),
            0u);
  // Too few outputs for a mean, or a reduction too short for sqrt(L) to
  // differ from L: not checked together.
  ValidationResult few =
      Validate(dropped.y.data(), dropped.ref.data(), dropped.abs_ref.data(), kRmsMinOutputs - 1, k);
  EXPECT_TRUE(few.ok);
  EXPECT_EQ(few.rms_error, 0);
  const FloatSums short_sums = SumsOf(kRmsMinReduction - 1, 64, false);
  EXPECT_EQ(Validate(short_sums.y.data(), short_sums.ref.data(), short_sums.abs_ref.data(), 64,
                     kRmsMinReduction - 1)
                .rms_error,
            0);
}

TEST(Validate, RejectsMisuse) {
  std::vector<float> a = {1};
  EXPECT_THROW(Validate(a.data(), a.data(), a.data(), 1, 0), Error);
  EXPECT_THROW(Validate(nullptr, a.data(), a.data(), 1, 1), Error);
  ValidationResult empty = Validate(static_cast<const float*>(nullptr), nullptr, nullptr, 0, 1);
  EXPECT_TRUE(empty.ok);
  EXPECT_EQ(empty.worst_index, -1);
}

}  // namespace
}  // namespace beast::harness
