// Value's text form (Python's repr, so canonical config text matches what a
// Python tool would print) and Python equality.
#include "beast/core/value.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace beast {
namespace {

// repr(float) in CPython: the shortest digits that round-trip, written
// positionally when the decimal exponent is in [-4, 16) and in scientific
// notation (at least two exponent digits) otherwise; whole numbers keep ".0".
std::string FloatRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  // Without a precision, to_chars gives the shortest round-trip digits.
  auto result = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  std::string sci(buf, result.ptr);
  std::string out;
  size_t pos = 0;
  if (sci[0] == '-') {
    out = "-";
    pos = 1;
  }
  size_t e = sci.find('e');
  std::string digits;
  for (size_t k = pos; k < e; ++k) {
    if (sci[k] != '.') digits += sci[k];
  }
  int exponent = std::stoi(sci.substr(e + 1));
  // value = 0.DIGITS * 10**decpt
  int decpt = exponent + 1;
  int ndigits = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(-decpt, '0') + digits;
    } else if (decpt >= ndigits) {
      out += digits + std::string(decpt - ndigits, '0') + ".0";
    } else {
      out += digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (ndigits > 1) out += "." + digits.substr(1);
  int mag = exponent < 0 ? -exponent : exponent;
  out += exponent < 0 ? "e-" : "e+";
  if (mag < 10) out += "0";
  out += std::to_string(mag);
  return out;
}

constexpr double kTwoTo63 = 9223372036854775808.0;

// An int against a float, exactly: neither is converted to the other's type,
// since int64 -> double rounds above 2**53.
int CompareIntFloat(int64_t i, double d) {
  if (std::isnan(d)) return kValuesUnordered;
  if (d >= kTwoTo63) return -1;
  if (d < -kTwoTo63) return 1;
  // d is in [-2**63, 2**63): its integral part converts exactly.
  double t = std::trunc(d);
  int64_t ti = static_cast<int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  double frac = d - t;
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

}  // namespace

int CompareValues(const Value& a, const Value& b) {
  const bool a_float = a.IsFloat(), b_float = b.IsFloat();
  if (!a_float && !b_float) return (a.i > b.i) - (a.i < b.i);
  if (a_float && b_float) {
    if (std::isnan(a.f) || std::isnan(b.f)) return kValuesUnordered;
    return (a.f > b.f) - (a.f < b.f);
  }
  if (a_float) {
    int c = CompareIntFloat(b.i, a.f);
    return c == kValuesUnordered ? c : -c;
  }
  return CompareIntFloat(a.i, b.f);
}

std::string Value::ToString() const {
  switch (kind) {
    case Kind::kBool:
      return i != 0 ? "True" : "False";
    case Kind::kInt:
      return std::to_string(i);
    case Kind::kFloat:
      return FloatRepr(f);
  }
  return "";
}

bool Value::Equals(const Value& other) const { return CompareValues(*this, other) == 0; }

}  // namespace beast
