// f16 and bf16 conversions against the compiler's own _Float16 and against
// the definition of round-to-nearest-even.
#include "beast/problem/storage16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace beast {
namespace {

float FloatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t CompilerF16Bits(float value) {
  const _Float16 h = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

TEST(Storage16, EveryF16ValueRoundTripsAndMatchesTheCompiler) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const float f = F16BitsToFloat(h);
    _Float16 expected;
    std::memcpy(&expected, &h, sizeof h);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(static_cast<float>(expected))) << bits;
      ASSERT_TRUE(std::isnan(F16BitsToFloat(FloatToF16Bits(f)))) << bits;
      continue;
    }
    ASSERT_EQ(f, static_cast<float>(expected)) << bits;
    ASSERT_EQ(FloatToF16Bits(f), h) << bits;
  }
}

TEST(Storage16, FloatToF16RoundsLikeTheCompilerAcrossTheFloatRange) {
  // Every 251st float bit pattern (17 million values: normals, subnormals,
  // overflow to infinity, both signs), and the exact midpoints between
  // neighbouring f16 values, where ties go to even.
  for (uint64_t u = 0; u <= 0xffffffffull; u += 251) {
    const float f = FloatOf(static_cast<uint32_t>(u));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToF16Bits(f), CompilerF16Bits(f)) << std::hexfloat << f;
  }
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    const double mid = (static_cast<double>(F16BitsToFloat(h)) + F16BitsToFloat(h + 1)) / 2;
    const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : h;
    ASSERT_EQ(FloatToF16Bits(static_cast<float>(mid)), even) << h;
  }
  EXPECT_EQ(FloatToF16Bits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToF16Bits(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToF16Bits(65520.0f), 0x7c00);
  EXPECT_EQ(FloatToF16Bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(FloatToF16Bits(0x1p-24f), 0x0001);
  EXPECT_EQ(FloatToF16Bits(0x1p-25f), 0x0000);  // a tie between 0 and 2^-24: even
}

TEST(Storage16, Bf16IsTheRoundedHighHalf) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    const float f = Bf16BitsToFloat(b);
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    ASSERT_EQ(u, bits << 16);
    if (!std::isnan(f)) ASSERT_EQ(FloatToBf16Bits(f), b) << bits;
  }
  EXPECT_EQ(FloatToBf16Bits(FloatOf(0x3f808000u)), 0x3f80);  // tie, 0x3f80 even: down
  EXPECT_EQ(FloatToBf16Bits(FloatOf(0x3f818000u)), 0x3f82);  // tie, 0x3f81 odd: up
  EXPECT_EQ(FloatToBf16Bits(FloatOf(0x3f808001u)), 0x3f81);  // above the tie: up
  EXPECT_EQ(FloatToBf16Bits(FloatOf(0x7f7fffffu)), 0x7f80);  // the largest float rounds to inf
  EXPECT_TRUE(std::isnan(Bf16BitsToFloat(FloatToBf16Bits(FloatOf(0x7f800001u)))));
}

}  // namespace
}  // namespace beast
