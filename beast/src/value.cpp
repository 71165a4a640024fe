// Value's text form (Python's repr, so canonical config text matches what a
// Python tool would print) and Python equality.
#include "beast/value.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "expr_numeric.hpp"

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

}  // namespace

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

bool Value::Equals(const Value& other) const { return expr::Compare(*this, other) == 0; }

}  // namespace beast
