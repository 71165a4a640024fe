// The 16-bit storage formats f16 (IEEE 754 binary16) and bf16 (the high half
// of a binary32): conversions between their bits and float, rounding to
// nearest even as the kernels' stores do, so the host prepares inputs and
// reads outputs exactly as the device holds them.
#pragma once

#include <cstdint>

namespace beast {

// float -> f16 bits, round to nearest even; out-of-range values become
// infinity, subnormals are kept, NaN stays NaN (quiet).
uint16_t FloatToF16Bits(float value);
// f16 bits -> float (exact: every f16 value is a float).
float F16BitsToFloat(uint16_t bits);

// float -> bf16 bits, round to nearest even; NaN stays NaN (quiet).
uint16_t FloatToBf16Bits(float value);
// bf16 bits -> float (exact).
float Bf16BitsToFloat(uint16_t bits);

}  // namespace beast
