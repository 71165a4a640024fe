// Value: a number as the expression language sees it — bool, int or float,
// with Python's promotion rules (bool is an int, int op float is float).
#pragma once

#include <cstdint>
#include <string>

namespace beast {

struct Value {
  enum class Kind : uint8_t { kBool, kInt, kFloat };
  Kind kind = Kind::kInt;
  union {
    int64_t i;
    double f;
  };

  Value() : i(0) {}
  static Value Int(int64_t v) {
    Value x;
    x.kind = Kind::kInt;
    x.i = v;
    return x;
  }
  static Value Float(double v) {
    Value x;
    x.kind = Kind::kFloat;
    x.f = v;
    return x;
  }
  static Value Bool(bool v) {
    Value x;
    x.kind = Kind::kBool;
    x.i = v ? 1 : 0;
    return x;
  }

  bool IsFloat() const { return kind == Kind::kFloat; }
  double AsDouble() const { return kind == Kind::kFloat ? f : static_cast<double>(i); }
  bool Truthy() const { return kind == Kind::kFloat ? f != 0.0 : i != 0; }
  // Python's repr: 3, 2.5, 1e-05, True. Used in canonical config text.
  std::string ToString() const;
  // Python equality: 1 == 1.0 == True.
  bool Equals(const Value& other) const;
};

// -1, 0 or 1 as a <, ==, > b compared as Python compares numbers (1 == 1.0 ==
// True, 2**53 + 1 != float(2**53)), or kValuesUnordered when a NaN is involved.
constexpr int kValuesUnordered = 2;
int CompareValues(const Value& a, const Value& b);

}  // namespace beast
