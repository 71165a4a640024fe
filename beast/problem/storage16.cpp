// f16 and bf16 conversions (storage16.hpp), bit by bit so that they do not
// depend on the compiler's _Float16 support or the FPU's rounding mode.
#include "beast/problem/storage16.hpp"

#include <cstring>

namespace beast {
namespace {

uint32_t BitsOf(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof u);
  return u;
}

float FloatOf(uint32_t u) {
  float value;
  std::memcpy(&value, &u, sizeof value);
  return value;
}

// x >> shift, rounded to nearest even on the bits shifted out (shift 1..31).
uint32_t ShiftRoundEven(uint32_t x, int shift) {
  const uint32_t half = 1u << (shift - 1);
  const uint32_t rest = x & ((1u << shift) - 1);
  uint32_t r = x >> shift;
  if (rest > half || (rest == half && (r & 1u))) ++r;
  return r;
}

}  // namespace

uint16_t FloatToF16Bits(float value) {
  const uint32_t u = BitsOf(value);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | (magnitude >> 13));
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent >= -14) {
    // Normal in f16: rebias the exponent and round the mantissa from 23 to 10
    // bits; a carry out of the mantissa steps the exponent, as it should.
    const uint32_t rebased = magnitude - (112u << 23);
    return static_cast<uint16_t>(sign | ShiftRoundEven(rebased, 13));
  }
  if (exponent < -25) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
  // Subnormal in f16: the value in units of 2^-24, rounded to nearest even.
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  return static_cast<uint16_t>(sign | ShiftRoundEven(mantissa, -exponent - 1));
}

float F16BitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) return FloatOf(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return FloatOf(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return FloatOf(sign);
  // Subnormal: normalize into a float exponent.
  int e = -14;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --e;
  }
  return FloatOf(sign | (static_cast<uint32_t>(e + 127) << 23) | ((mantissa & 0x3ffu) << 13));
}

uint16_t FloatToBf16Bits(float value) {
  const uint32_t u = BitsOf(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float Bf16BitsToFloat(uint16_t bits) { return FloatOf(static_cast<uint32_t>(bits) << 16); }

}  // namespace beast
