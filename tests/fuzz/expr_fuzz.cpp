// libFuzzer entry for the expression language: the input is parsed as an
// expression; when it parses, it is compiled with every name bound to a slot
// and evaluated on slot vectors of every kind (ints at the edges of int64,
// negatives, floats, inf and nan, bools, and one drawn from the input).
// Nothing may crash or trip a sanitizer; Parse may reject the input with
// Error, Compile only with Error(kBadInput) for a program too large; and
// Eval must agree with Expr::Evaluate, which compiles against another slot
// layout (a failed check aborts, which libFuzzer reports as a crash).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/expr/expr.hpp"

namespace {

using beast::EvalStatus;
using beast::Value;

std::vector<std::vector<Value>> SlotVectors(size_t n, const uint8_t* data, size_t size) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const double kInf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<Value>> vectors(9, std::vector<Value>(n));
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the input picks the last vector
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  for (size_t i = 0; i < n; ++i) {
    int64_t k = static_cast<int64_t>(i);
    vectors[0][i] = Value::Int(0);
    vectors[1][i] = Value::Int(k + 1);
    vectors[2][i] = Value::Int(-(k + 2));
    vectors[3][i] = Value::Int(i % 2 ? kMax - k : kMin + k);
    vectors[4][i] = Value::Float(0.5 * static_cast<double>(k + 1));
    vectors[5][i] = Value::Float(i % 2 ? -2.5 : 1e300);
    vectors[6][i] = Value::Bool(i % 2 == 0);
    vectors[7][i] = i % 3 == 0   ? Value::Float(std::nan(""))
                    : i % 3 == 1 ? Value::Float(-kInf)
                                 : Value::Int(3);
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    switch (h >> 62) {
      case 0:
        vectors[8][i] = Value::Int(static_cast<int8_t>(h >> 8));
        break;
      case 1:
        vectors[8][i] = Value::Int(static_cast<int64_t>(h));
        break;
      case 2:
        vectors[8][i] = Value::Float(static_cast<double>(static_cast<int16_t>(h >> 16)) / 8);
        break;
      default:
        vectors[8][i] = Value::Bool((h >> 20) & 1);
        break;
    }
  }
  return vectors;
}

bool Same(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  if (a.IsFloat() && std::isnan(a.f)) return std::isnan(b.f);
  return a.Equals(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  beast::Expr expr;
  try {
    expr = beast::Expr::Parse(text);
  } catch (const beast::Error&) {
    return 0;
  }
  // Name k goes to slot 2 * (n - 1 - k) + 1, between slots of junk: a layout
  // unlike the one Evaluate compiles against (names in order from slot 0).
  const std::vector<std::string>& names = expr.Names();
  const size_t n = names.size();
  auto slot_of = [&](const std::string& name) {
    for (size_t k = 0; k < n; ++k) {
      if (names[k] == name) return static_cast<int>(2 * (n - 1 - k) + 1);
    }
    return -1;
  };
  beast::CompiledExpr compiled;
  try {
    compiled = expr.Compile(slot_of);
  } catch (const beast::Error& e) {
    if (e.code() != beast::ErrorCode::kBadInput) std::abort();  // only "too large" is allowed
    return 0;
  }
  for (const auto& values : SlotVectors(n, data, size)) {
    std::vector<Value> slots(2 * n + 1, Value::Float(std::nan("")));
    for (size_t k = 0; k < n; ++k) slots[2 * (n - 1 - k) + 1] = values[k];
    Value out;
    EvalStatus status = compiled.Eval(slots.data(), &out);
    // Evaluate binds the names by lookup, to a layout of its own.
    Value expected;
    bool threw = false;
    try {
      expected = expr.Evaluate([&](const std::string& name, Value* v) {
        int slot = slot_of(name);
        if (slot < 0) return false;
        *v = slots[slot];
        return true;
      });
    } catch (const beast::Error&) {
      threw = true;
    }
    if (threw != (status != EvalStatus::kOk)) std::abort();
    if (!threw && !Same(out, expected)) std::abort();
  }
  return 0;
}
