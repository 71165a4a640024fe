// Python's numeric semantics on Values; see expr_numeric.hpp. Float
// operations follow CPython's floatobject.c case by case (floor division,
// modulo and power have sign and special-value rules that plain C lacks);
// int true division is correctly rounded like CPython's long_true_divide.
#include "beast/expr/expr_numeric.hpp"

#include <cmath>

namespace beast::expr {
namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr int64_t kTwoTo53 = int64_t{1} << 53;

uint64_t Magnitude(int64_t v) {
  return v < 0 ? ~static_cast<uint64_t>(v) + 1 : static_cast<uint64_t>(v);
}

int BitLength(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// int / int, correctly rounded. Below 2**53 both operands are exact doubles
// and one IEEE division rounds correctly; beyond, take at least 55 quotient
// bits in 128-bit integers and fold the remainder into a sticky bit so the
// final conversion rounds as the exact quotient would.
double IntTrueDivide(int64_t a, int64_t b) {
  if (-kTwoTo53 <= a && a <= kTwoTo53 && -kTwoTo53 <= b && b <= kTwoTo53) {
    return static_cast<double>(a) / static_cast<double>(b);
  }
  uint64_t ua = Magnitude(a);
  uint64_t ub = Magnitude(b);
  int shift = 55 + BitLength(ub) - BitLength(ua);
  if (shift < 0) shift = 0;
  unsigned __int128 n = static_cast<unsigned __int128>(ua) << shift;
  unsigned __int128 q = n / ub;
  if (n % ub != 0) q |= 1;
  double r = std::ldexp(static_cast<double>(q), -shift);
  return (a < 0) != (b < 0) ? -r : r;
}

bool IsOddInteger(double v) { return std::fmod(v, 2.0) == 1.0 || std::fmod(v, 2.0) == -1.0; }

// CPython's float_pow, with ZeroDivisionError (0.0 ** negative), the complex
// result of a negative base to a fractional power and OverflowError all
// reported as kDomainError.
EvalStatus FloatPow(double v, double w, Value* out) {
  if (w == 0.0) {
    *out = Value::Float(1.0);
    return EvalStatus::kOk;
  }
  if (std::isnan(v)) {
    *out = Value::Float(v);
    return EvalStatus::kOk;
  }
  if (std::isnan(w)) {
    *out = Value::Float(v == 1.0 ? 1.0 : w);
    return EvalStatus::kOk;
  }
  if (std::isinf(w)) {
    double av = std::fabs(v);
    if (av == 1.0) {
      *out = Value::Float(1.0);
    } else if ((w > 0.0) == (av > 1.0)) {
      *out = Value::Float(std::fabs(w));
    } else {
      *out = Value::Float(0.0);
    }
    return EvalStatus::kOk;
  }
  if (std::isinf(v)) {
    bool odd = IsOddInteger(w);
    if (w > 0.0) {
      *out = Value::Float(odd ? v : std::fabs(v));
    } else {
      *out = Value::Float(odd ? std::copysign(0.0, v) : 0.0);
    }
    return EvalStatus::kOk;
  }
  if (v == 0.0) {
    if (w < 0.0) return EvalStatus::kDomainError;
    *out = Value::Float(IsOddInteger(w) ? v : 0.0);
    return EvalStatus::kOk;
  }
  bool negate = false;
  if (v < 0.0) {
    if (w != std::floor(w)) return EvalStatus::kDomainError;
    v = -v;
    negate = IsOddInteger(w);
  }
  if (v == 1.0) {
    *out = Value::Float(negate ? -1.0 : 1.0);
    return EvalStatus::kOk;
  }
  double r = std::pow(v, w);
  if (std::isinf(r)) return EvalStatus::kDomainError;
  *out = Value::Float(negate ? -r : r);
  return EvalStatus::kOk;
}

EvalStatus IntPow(int64_t base, int64_t exp, Value* out) {
  if (exp < 0) {
    return FloatPow(static_cast<double>(base), static_cast<double>(exp), out);
  }
  int64_t r;
  if (!IntPowNonNegative(base, exp, &r)) return EvalStatus::kDomainError;
  *out = Value::Int(r);
  return EvalStatus::kOk;
}

}  // namespace

bool IntPowNonNegative(int64_t base, int64_t exp, int64_t* out) {
  int64_t result = 1;
  // Square-and-multiply. The base is squared only while exponent bits remain,
  // so every intermediate divides the final result: an intermediate overflows
  // only when the result does.
  while (true) {
    if ((exp & 1) && __builtin_mul_overflow(result, base, &result)) return false;
    exp >>= 1;
    if (exp == 0) break;
    if (__builtin_mul_overflow(base, base, &base)) return false;
  }
  *out = result;
  return true;
}

EvalStatus Add(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) {
    int64_t r;
    if (__builtin_add_overflow(a.i, b.i, &r)) return EvalStatus::kDomainError;
    *out = Value::Int(r);
  } else {
    *out = Value::Float(a.AsDouble() + b.AsDouble());
  }
  return EvalStatus::kOk;
}

EvalStatus Sub(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) {
    int64_t r;
    if (__builtin_sub_overflow(a.i, b.i, &r)) return EvalStatus::kDomainError;
    *out = Value::Int(r);
  } else {
    *out = Value::Float(a.AsDouble() - b.AsDouble());
  }
  return EvalStatus::kOk;
}

EvalStatus Mul(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) {
    int64_t r;
    if (__builtin_mul_overflow(a.i, b.i, &r)) return EvalStatus::kDomainError;
    *out = Value::Int(r);
  } else {
    *out = Value::Float(a.AsDouble() * b.AsDouble());
  }
  return EvalStatus::kOk;
}

EvalStatus TrueDiv(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) {
    if (b.i == 0) return EvalStatus::kDivisionByZero;
    *out = Value::Float(IntTrueDivide(a.i, b.i));
    return EvalStatus::kOk;
  }
  double w = b.AsDouble();
  if (w == 0.0) return EvalStatus::kDivisionByZero;
  *out = Value::Float(a.AsDouble() / w);
  return EvalStatus::kOk;
}

EvalStatus FloorDiv(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) {
    if (b.i == 0) return EvalStatus::kDivisionByZero;
    int64_t q;
    if (!IntFloorDiv(a.i, b.i, &q)) return EvalStatus::kDomainError;
    *out = Value::Int(q);
    return EvalStatus::kOk;
  }
  // CPython's _float_div_mod: fmod is exact, so (v - mod) / w is within an
  // ulp of a whole number; snap it instead of trusting floor(v / w).
  double v = a.AsDouble();
  double w = b.AsDouble();
  if (w == 0.0) return EvalStatus::kDivisionByZero;
  double mod = std::fmod(v, w);
  double div = (v - mod) / w;
  if (mod != 0.0 && ((w < 0) != (mod < 0))) div -= 1.0;
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, v / w);
  }
  *out = Value::Float(floordiv);
  return EvalStatus::kOk;
}

EvalStatus Mod(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) {
    if (b.i == 0) return EvalStatus::kDivisionByZero;
    *out = Value::Int(IntMod(a.i, b.i));
    return EvalStatus::kOk;
  }
  double v = a.AsDouble();
  double w = b.AsDouble();
  if (w == 0.0) return EvalStatus::kDivisionByZero;
  double mod = std::fmod(v, w);
  if (mod != 0.0) {
    if ((w < 0) != (mod < 0)) mod += w;
  } else {
    mod = std::copysign(0.0, w);
  }
  *out = Value::Float(mod);
  return EvalStatus::kOk;
}

EvalStatus Pow(const Value& a, const Value& b, Value* out) {
  if (BothInts(a, b)) return IntPow(a.i, b.i, out);
  return FloatPow(a.AsDouble(), b.AsDouble(), out);
}

EvalStatus CeilDiv(const Value& a, const Value& b, Value* out) {
  Value negated;
  EvalStatus status = Neg(a, &negated);
  if (status != EvalStatus::kOk) return status;
  Value floored;
  status = FloorDiv(negated, b, &floored);
  if (status != EvalStatus::kOk) return status;
  return Neg(floored, out);
}

EvalStatus Neg(const Value& a, Value* out) {
  if (a.IsFloat()) {
    *out = Value::Float(-a.f);
  } else {
    if (a.i == INT64_MIN) return EvalStatus::kDomainError;
    *out = Value::Int(-a.i);
  }
  return EvalStatus::kOk;
}

EvalStatus Pos(const Value& a, Value* out) {
  *out = a.IsFloat() ? a : Value::Int(a.i);
  return EvalStatus::kOk;
}

EvalStatus Abs(const Value& a, Value* out) {
  if (a.IsFloat()) {
    *out = Value::Float(std::fabs(a.f));
  } else {
    if (a.i == INT64_MIN) return EvalStatus::kDomainError;
    *out = Value::Int(a.i < 0 ? -a.i : a.i);
  }
  return EvalStatus::kOk;
}

EvalStatus ToInt(const Value& a, Value* out) {
  if (!a.IsFloat()) {
    *out = Value::Int(a.i);
    return EvalStatus::kOk;
  }
  // Doubles this large are whole, so the range test can precede truncation;
  // NaN fails it too.
  if (!(a.f >= -kTwoTo63 && a.f < kTwoTo63)) return EvalStatus::kDomainError;
  *out = Value::Int(static_cast<int64_t>(std::trunc(a.f)));
  return EvalStatus::kOk;
}

EvalStatus ToFloat(const Value& a, Value* out) {
  *out = Value::Float(a.AsDouble());
  return EvalStatus::kOk;
}

}  // namespace beast::expr
