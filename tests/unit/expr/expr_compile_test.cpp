// Tests of compiled expressions: name resolution to slots, the slots a
// program reads, one program serving ints, bools and floats alike (the int
// path hands over to the general one), copies, and evaluation without heap
// allocation.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/expr/expr.hpp"

// Counts heap allocations, to check that Eval makes none. Not inlined, so
// the compiler does not pair the malloc and free inside them with new and
// delete expressions elsewhere.
static std::atomic<long> g_allocations{0};
[[gnu::noinline]] void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace beast {
namespace {

CompiledExpr CompileWith(const std::string& text, const std::map<std::string, int>& slots) {
  return Expr::Parse(text).Compile([&](const std::string& name) {
    auto it = slots.find(name);
    return it == slots.end() ? -1 : it->second;
  });
}

std::string Outcome(const CompiledExpr& c, const std::vector<Value>& slots) {
  Value out;
  EvalStatus s = c.Eval(slots.data(), &out);
  if (s != EvalStatus::kOk) return s == EvalStatus::kDivisionByZero ? "div0" : "domain";
  const char* kinds[] = {"bool ", "int ", "float "};
  return kinds[static_cast<int>(out.kind)] + out.ToString();
}

TEST(ExprCompileTest, SlotsAreTheSlotsRead) {
  CompiledExpr c = CompileWith("b * a + c * a", {{"a", 5}, {"b", 2}, {"c", 9}, {"d", 0}});
  EXPECT_EQ(c.Slots(), (std::vector<int>{2, 5, 9}));
  std::vector<Value> slots(10, Value::Int(0));
  slots[2] = Value::Int(3);
  slots[5] = Value::Int(4);
  slots[9] = Value::Int(5);
  EXPECT_EQ(Outcome(c, slots), "int 32");
  // Two names on one slot read it once; a constant reads none.
  EXPECT_EQ(CompileWith("x - y", {{"x", 1}, {"y", 1}}).Slots(), (std::vector<int>{1}));
  EXPECT_TRUE(CompileWith("2 ** 8 // 3", {}).Slots().empty());
  EXPECT_EQ(Outcome(CompileWith("2 ** 8 // 3", {}), {}), "int 85");
  // A branch that constant folding removes reads nothing.
  EXPECT_EQ(CompileWith("x if True else y", {{"x", 0}, {"y", 1}}).Slots(), (std::vector<int>{0}));
  EXPECT_EQ(CompileWith("y if x else 0 and z", {{"x", 0}, {"y", 1}, {"z", 2}}).Slots(),
            (std::vector<int>{0, 1}));
}

TEST(ExprCompileTest, LongChainsCompile) {
  std::string sum = "x";
  for (int k = 1; k < 150; ++k) sum += (k % 2 ? " + x * " : " - x // ") + std::to_string(k);
  CompiledExpr c = CompileWith(sum, {{"x", 0}});
  // x * (1 + 3 + ... + 149) - (x // 2 + x // 4 + ... + x // 148) with x = 1.
  EXPECT_EQ(Outcome(c, {Value::Int(1)}), "int 5626");
  EXPECT_EQ(Outcome(c, {Value::Float(1.0)}), "float 5626.0");
}

TEST(ExprCompileTest, LongListsCompileUpToTheFrameSize) {
  std::string list;
  for (int k = 0; k < 1000; ++k) list += (k ? ", " : "") + std::to_string(k * 3);
  CompiledExpr c = CompileWith("x in [" + list + "]", {{"x", 0}});
  EXPECT_EQ(Outcome(c, {Value::Int(2997)}), "bool True");
  EXPECT_EQ(Outcome(c, {Value::Float(2997.0)}), "bool True");
  EXPECT_EQ(Outcome(c, {Value::Int(2998)}), "bool False");
  std::string text = "x in [" + list + ", 3000, 3001, 3002, 3003, 3004, 3005, 3006, 3007, " +
                     "3008, 3009, 3010, 3011, 3012, 3013, 3014, 3015, 3016, 3017, 3018, " +
                     "3019, 3020, 3021, 3022, 3023]";
  try {
    CompileWith(text, {{"x", 0}});
    FAIL() << "compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadInput);
    EXPECT_EQ(std::string(e.what()), "expression \"" + text +
                                         "\": too large to compile (needs 1026 registers, "
                                         "at most 1024)");
  }
}

TEST(ExprCompileTest, UnknownNameThrowsNotFound) {
  try {
    CompileWith("X + Z * 2", {{"X", 0}});
    FAIL() << "compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_STREQ(e.what(), "expression \"X + Z * 2\": unknown name \"Z\"");
  }
  // Also in a branch that constant folding removes.
  try {
    CompileWith("X if True else 0 and Z", {{"X", 0}});
    FAIL() << "compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_STREQ(e.what(), "expression \"X if True else 0 and Z\": unknown name \"Z\"");
  }
}

TEST(ExprCompileTest, OneProgramForEveryKindOfSlot) {
  struct Case {
    const char* text;
    std::vector<Value> slots;  // x, y
    const char* expected;
  };
  const Value t = Value::Bool(true);
  const Value f = Value::Bool(false);
  const Case cases[] = {
      {"min(x, y)", {Value::Int(3), Value::Int(5)}, "int 3"},
      {"min(x, y)", {t, Value::Int(5)}, "bool True"},
      {"min(x, y)", {Value::Float(2.5), Value::Int(5)}, "float 2.5"},
      {"max(x, y)", {Value::Int(1), t}, "int 1"},
      {"x", {t, f}, "bool True"},
      {"x and y", {t, f}, "bool False"},
      {"x and y", {Value::Int(2), f}, "bool False"},
      {"x or y", {Value::Int(0), Value::Float(0.5)}, "float 0.5"},
      {"x if y else 0", {t, t}, "bool True"},
      {"x + 1", {t, f}, "int 2"},
      {"x * y", {Value::Float(2.5), Value::Int(2)}, "float 5.0"},
      {"x % y == 0", {Value::Int(12), Value::Int(4)}, "bool True"},
      {"x % y == 0", {Value::Float(12.5), Value::Int(4)}, "bool False"},
      {"x % y == 0", {Value::Int(12), f}, "div0"},
      {"x ** y", {Value::Int(2), Value::Int(-2)}, "float 0.25"},
      {"x ** y", {Value::Int(-2), Value::Int(3)}, "int -8"},
      {"x ** 2 > 10 and x // y < 3", {Value::Int(4), Value::Int(2)}, "bool True"},
      {"x < y <= 10", {Value::Int(4), Value::Float(10.0)}, "bool True"},
      {"x < y <= 10", {Value::Int(4), Value::Int(11)}, "bool False"},
      {"x in [1, y, 4]", {Value::Int(3), Value::Int(3)}, "bool True"},
      {"x not in (1, y)", {Value::Float(3.0), Value::Int(3)}, "bool False"},
      {"ceil_div(x, y) * y", {Value::Int(10), Value::Int(4)}, "int 12"},
      {"ceil_div(x, y) * y", {Value::Int(10), Value::Float(4.0)}, "float 12.0"},
      {"abs(x - y)", {Value::Int(3), Value::Int(10)}, "int 7"},
      {"int(x / y)", {Value::Int(-7), Value::Int(2)}, "int -3"},
      {"-x", {t, f}, "int -1"},
      {"not x", {Value::Float(0.0), f}, "bool True"},
      {"x // 1 // 0 if y else 5", {Value::Int(1), f}, "int 5"},
      {"x // 1 // 0 if y else 5", {Value::Int(1), t}, "div0"},
      {"x * 4611686018427387904", {Value::Int(2), f}, "domain"},
      {"x * 4611686018427387904", {Value::Float(2.0), f}, "float 9.223372036854776e+18"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    CompiledExpr compiled = CompileWith(c.text, {{"x", 0}, {"y", 1}});
    EXPECT_EQ(Outcome(compiled, c.slots), c.expected);
  }
}

TEST(ExprCompileTest, OutMayBeASlotOfTheInput) {
  // A derived value written into the slot array it is computed from.
  CompiledExpr c = CompileWith("a * b + a", {{"a", 0}, {"b", 1}, {"c", 2}});
  std::vector<Value> slots = {Value::Int(6), Value::Int(7), Value::Int(0)};
  ASSERT_EQ(c.Eval(slots.data(), &slots[0]), EvalStatus::kOk);
  EXPECT_EQ(slots[0].ToString(), "48");
  CompiledExpr g = CompileWith("a / b", {{"a", 0}, {"b", 1}});
  ASSERT_EQ(g.Eval(slots.data(), &slots[1]), EvalStatus::kOk);
  EXPECT_EQ(slots[1].ToString(), "6.857142857142857");
}

TEST(ExprCompileTest, CopiesEvaluateTheSame) {
  CompiledExpr a = CompileWith("x * 2 + 1", {{"x", 0}});
  CompiledExpr b = a;
  CompiledExpr c;
  EXPECT_TRUE(c.Slots().empty());
  c = a;
  CompiledExpr d = std::move(a);
  std::vector<Value> slots = {Value::Int(20)};
  EXPECT_EQ(Outcome(b, slots), "int 41");
  EXPECT_EQ(Outcome(c, slots), "int 41");
  EXPECT_EQ(Outcome(d, slots), "int 41");
  EXPECT_EQ(d.Slots(), (std::vector<int>{0}));
}

TEST(ExprCompileTest, EvalDoesNotAllocate) {
  const char* texts[] = {
      "X % Y == 0 and X * Y <= 1024",
      "min(X, Y, 8) if X in [1, 2, 4, 8] else ceil_div(X, Y) ** 2",
      "X / Y > 2.5 or not (0 < X <= 64)",
      "max(float(X), Y * 0.5) // 3 % 2 != abs(-X)",
  };
  const std::vector<std::vector<Value>> inputs = {
      {Value::Int(64), Value::Int(8)},
      {Value::Int(6), Value::Int(0)},
      {Value::Float(2.5), Value::Int(3)},
      {Value::Bool(true), Value::Int(-4)},
  };
  for (const char* text : texts) {
    long before_compile = g_allocations.load();
    CompiledExpr c = CompileWith(text, {{"X", 0}, {"Y", 1}});
    EXPECT_GT(g_allocations.load() - before_compile, 0) << "the counter counts";
    long before = g_allocations.load();
    for (const auto& slots : inputs) {
      for (int k = 0; k < 100; ++k) {
        Value out;
        c.Eval(slots.data(), &out);
      }
    }
    EXPECT_EQ(g_allocations.load() - before, 0) << text;
  }
}

}  // namespace
}  // namespace beast
