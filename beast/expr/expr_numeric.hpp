// Python's numeric semantics on Values (bool, int, float): the arithmetic,
// comparison and conversion rules of the expression language. Shared by the
// evaluator (whose inline fast paths cover int op int), constant folding and
// Value::Equals, so there is one definition of what `-7 // 2` means.
#pragma once

#include <cstdint>

#include "beast/core/value.hpp"
#include "beast/expr/expr.hpp"

namespace beast::expr {

// Result of Compare when either side is NaN: every ordering test is false.
constexpr int kUnordered = kValuesUnordered;

// True when neither operand is a float: bool and int share the int path.
// Relies on Kind's order (kBool, kInt < kFloat).
inline bool BothInts(const Value& a, const Value& b) {
  return (static_cast<unsigned>(a.kind) | static_cast<unsigned>(b.kind)) <
         static_cast<unsigned>(Value::Kind::kFloat);
}

inline bool FitsInt32(int64_t v) { return static_cast<uint64_t>(v) + 0x80000000u <= 0xFFFFFFFFu; }

// Truncating a / b and a % b, b != 0 and b != -1. 64-bit division is several
// times slower than 32-bit on many x86 cores, and space parameters are small.
inline int64_t TruncDiv(int64_t a, int64_t b) {
  if (FitsInt32(a) && FitsInt32(b)) return static_cast<int32_t>(a) / static_cast<int32_t>(b);
  return a / b;
}
inline int64_t TruncRem(int64_t a, int64_t b) {
  if (FitsInt32(a) && FitsInt32(b)) return static_cast<int32_t>(a) % static_cast<int32_t>(b);
  return a % b;
}

// Python's a // b for ints, b != 0. False when the quotient overflows
// (INT64_MIN // -1).
inline bool IntFloorDiv(int64_t a, int64_t b, int64_t* q) {
  if (b == -1) {
    if (a == INT64_MIN) return false;
    *q = -a;
    return true;
  }
  int64_t t = TruncDiv(a, b);
  // C truncates toward zero; Python floors, so step down when the exact
  // quotient was negative and not whole.
  if ((t * b != a) && ((a < 0) != (b < 0))) --t;
  *q = t;
  return true;
}

// Python's a % b for ints, b != 0: the result takes the sign of b.
inline int64_t IntMod(int64_t a, int64_t b) {
  if (b == -1) return 0;  // a % -1 is 0, and INT64_MIN % -1 would trap in C
  int64_t r = TruncRem(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// base ** exp for exp >= 0; false when the result overflows.
bool IntPowNonNegative(int64_t base, int64_t exp, int64_t* out);

// -1, 0 or 1 as a <, ==, > b compared mathematically (1 == 1.0 == True,
// 2**53 + 1 != float(2**53)), or kUnordered when a NaN is involved.
inline int Compare(const Value& a, const Value& b) { return CompareValues(a, b); }

// Binary operators. Each writes *out only on kOk.
EvalStatus Add(const Value& a, const Value& b, Value* out);
EvalStatus Sub(const Value& a, const Value& b, Value* out);
EvalStatus Mul(const Value& a, const Value& b, Value* out);
EvalStatus TrueDiv(const Value& a, const Value& b, Value* out);
EvalStatus FloorDiv(const Value& a, const Value& b, Value* out);
EvalStatus Mod(const Value& a, const Value& b, Value* out);
EvalStatus Pow(const Value& a, const Value& b, Value* out);
// beast's ceil_div(a, b), defined as -(-a // b).
EvalStatus CeilDiv(const Value& a, const Value& b, Value* out);

// Unary operators and the conversion functions.
EvalStatus Neg(const Value& a, Value* out);
EvalStatus Pos(const Value& a, Value* out);
EvalStatus Abs(const Value& a, Value* out);
EvalStatus ToInt(const Value& a, Value* out);
EvalStatus ToFloat(const Value& a, Value* out);

}  // namespace beast::expr
