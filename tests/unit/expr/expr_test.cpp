// Tests of expression values against Python's results, each checked both
// folded at compile time and computed at run time from slots (the int path
// when every slot is an int), and of evaluation statuses and failures.
#include "beast/expr/expr.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "beast/core/error.hpp"

namespace beast {
namespace {

using Kind = Value::Kind;
using Bindings = std::vector<std::pair<std::string, Value>>;

// Compiles text with names bound to consecutive slots and evaluates it.
EvalStatus EvalWith(const std::string& text, const Bindings& vars, Value* out) {
  std::vector<Value> slots;
  for (const auto& v : vars) slots.push_back(v.second);
  CompiledExpr c = Expr::Parse(text).Compile([&](const std::string& name) {
    for (size_t k = 0; k < vars.size(); ++k) {
      if (vars[k].first == name) return static_cast<int>(k);
    }
    return -1;
  });
  return c.Eval(slots.data(), out);
}

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The same expression with every literal (numbers, True, False) read from a
// slot instead, so it is computed at run time rather than folded.
std::string Lift(const std::string& text, Bindings* vars) {
  std::string out;
  size_t k = 0;
  auto bind = [&](const std::string& literal) {
    std::string name = "v" + std::to_string(vars->size());
    vars->emplace_back(name, Expr::Parse(literal).Evaluate(nullptr));
    out += name;
  };
  while (k < text.size()) {
    char c = text[k];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = k;
      while (end < text.size() && IsNameChar(text[end])) ++end;
      std::string word = text.substr(k, end - k);
      if (word == "True" || word == "False") {
        bind(word);
      } else {
        out += word;
      }
      k = end;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && k + 1 < text.size() && std::isdigit(text[k + 1]))) {
      bool hex = c == '0' && k + 1 < text.size() && (text[k + 1] == 'x' || text[k + 1] == 'X');
      size_t end = k;
      while (end < text.size()) {
        char d = text[end];
        bool exponent_sign =
            !hex && (d == '+' || d == '-') && (text[end - 1] == 'e' || text[end - 1] == 'E');
        if (!IsNameChar(d) && d != '.' && !exponent_sign) break;
        ++end;
      }
      bind(text.substr(k, end - k));
      k = end;
    } else {
      out += c;
      ++k;
    }
  }
  return out;
}

struct Case {
  const char* text;
  Kind kind;
  const char* repr;  // Python's repr of the result
};

const Kind B = Kind::kBool;
const Kind I = Kind::kInt;
const Kind F = Kind::kFloat;

// Every expected value is what CPython 3 prints for the same text.
const Case kCases[] = {
    // True division is always a float; // floors; % takes the divisor's sign.
    {"7 / 2", F, "3.5"},
    {"-7 / 2", F, "-3.5"},
    {"6 / 3", F, "2.0"},
    {"1 / 3", F, "0.3333333333333333"},
    {"0 / -5", F, "-0.0"},
    {"9007199254740993 / 1", F, "9007199254740992.0"},
    {"9223372036854775807 / 3", F, "3.0744573456182584e+18"},
    {"7 // 2", I, "3"},
    {"-7 // 2", I, "-4"},
    {"7 // -2", I, "-4"},
    {"-7 // -2", I, "3"},
    {"-6 // 3", I, "-2"},
    {"7.5 // 2", F, "3.0"},
    {"-7.5 // 2", F, "-4.0"},
    {"7.5 // -2", F, "-4.0"},
    {"0.0 // -1.0", F, "-0.0"},
    {"1.0 // 0.1", F, "9.0"},
    {"7 % 3", I, "1"},
    {"-7 % 3", I, "2"},
    {"7 % -3", I, "-2"},
    {"-7 % -3", I, "-1"},
    {"-6 % 3", I, "0"},
    {"-7.5 % 2", F, "0.5"},
    {"7.5 % -2", F, "-0.5"},
    {"6.0 % -3", F, "-0.0"},
    {"-6.0 % 3", F, "0.0"},
    {"1.0 % 0.1", F, "0.09999999999999995"},
    // Powers: int ** non-negative int stays an int.
    {"2 ** 10", I, "1024"},
    {"2 ** -1", F, "0.5"},
    {"(-2) ** 3", I, "-8"},
    {"(-2) ** -2", F, "0.25"},
    {"2.0 ** 3", F, "8.0"},
    {"4 ** 0.5", F, "2.0"},
    {"0 ** 0", I, "1"},
    {"0.0 ** 0", F, "1.0"},
    {"(-8.0) ** 3", F, "-512.0"},
    {"(-1.0) ** 0.0", F, "1.0"},
    {"2 ** 62", I, "4611686018427387904"},
    {"(-2) ** 63", I, "-9223372036854775808"},
    {"1 ** 9223372036854775807", I, "1"},
    {"(-1) ** 9223372036854775807", I, "-1"},
    {"10 ** -2", F, "0.01"},
    // Bool is an int; comparisons give bools.
    {"True + 1", I, "2"},
    {"True + True", I, "2"},
    {"True * 3.0", F, "3.0"},
    {"-True", I, "-1"},
    {"+False", I, "0"},
    {"True / 2", F, "0.5"},
    {"True // True", I, "1"},
    {"True ** 2", I, "1"},
    {"True == 1", B, "True"},
    {"True == 1.0", B, "True"},
    {"abs(True)", I, "1"},
    {"int(True)", I, "1"},
    {"float(False)", F, "0.0"},
    {"not 0", B, "True"},
    {"not 2.5", B, "False"},
    {"True", B, "True"},
    {"False", B, "False"},
    // Comparisons, chained: a < b < c is a < b and b < c.
    {"1 < 2", B, "True"},
    {"1 < 2 < 3", B, "True"},
    {"3 > 2 > 2", B, "False"},
    {"1 < 3 > 2", B, "True"},
    {"1 < 2 > 3", B, "False"},
    {"0 < 1 < 2 < 3 < 4", B, "True"},
    {"1 == 1.0", B, "True"},
    {"1 != 1.0", B, "False"},
    {"2 >= 2.5", B, "False"},
    {"-1 <= -1.0", B, "True"},
    {"9007199254740993 == 9007199254740992.0", B, "False"},
    {"9007199254740993 > 9007199254740992.0", B, "True"},
    {"9007199254740992 == 9007199254740992.0", B, "True"},
    {"9223372036854775807 < 9223372036854775808.0", B, "True"},
    {"1e300 * 1e300 > 9223372036854775807", B, "True"},
    {"1e300 * 1e300 - 1e300 * 1e300 == 1e300 * 1e300 - 1e300 * 1e300", B, "False"},
    {"1e300 * 1e300 - 1e300 * 1e300 != 1e300 * 1e300 - 1e300 * 1e300", B, "True"},
    // and / or return an operand and stop early; if-else is lazy.
    {"0 or 5", I, "5"},
    {"2 and 0", I, "0"},
    {"0 and 1 / 0", I, "0"},
    {"1 or 1 / 0", I, "1"},
    {"0.0 or False", B, "False"},
    {"3 and 4.5", F, "4.5"},
    {"1 and 2 and 3", I, "3"},
    {"0 or 0.0 or False", B, "False"},
    {"not 1 or 2", I, "2"},
    {"1 if True else 1 / 0", I, "1"},
    {"1 / 0 if False else 2.5", F, "2.5"},
    {"1 if 0 else 2 if 0 else 3", I, "3"},
    {"(1 if 0 else 2) + 1", I, "3"},
    {"1 if 1 else 0 or 5", I, "1"},
    // in / not in over list and tuple literals.
    {"2 in [1, 2, 4]", B, "True"},
    {"3 in [1, 2, 4]", B, "False"},
    {"3 not in [1, 2, 4]", B, "True"},
    {"2 in (1, 2)", B, "True"},
    {"2.0 in (1, 2)", B, "True"},
    {"True in [1]", B, "True"},
    {"1 in []", B, "False"},
    {"1 not in ()", B, "True"},
    {"1 in (1,)", B, "True"},
    {"2 in [1, 2,]", B, "True"},
    {"not 2 in [2]", B, "False"},
    {"1 + 1 in [2]", B, "True"},
    {"2 in [1 + 1, 2 * 3]", B, "True"},
    {"1 < 2 in [2]", B, "True"},
    // Precedence.
    {"2 + 3 * 4", I, "14"},
    {"(2 + 3) * 4", I, "20"},
    {"2 * 3 % 4", I, "2"},
    {"10 - 2 - 3", I, "5"},
    {"100 // 10 // 3", I, "3"},
    {"-2 ** 2", I, "-4"},
    {"-2 ** -1", F, "-0.5"},
    {"2 ** 3 ** 2", I, "512"},
    {"2 ** -1 ** 2", F, "0.5"},
    {"2 * -3", I, "-6"},
    {"- - 3", I, "3"},
    {"-(-3)", I, "3"},
    {"not 1 == 2", B, "True"},
    {"1 + 2 < 4 and 5 > 3 or 0", B, "True"},
    {"not 1 and 0", B, "False"},
    {"3 - -2", I, "5"},
    // Functions.
    {"min(3, 1, 2)", I, "1"},
    {"max(1, 1.0)", I, "1"},
    {"max(1.0, 1)", F, "1.0"},
    {"min(2.5, 3)", F, "2.5"},
    {"max(True, 1)", B, "True"},
    {"min(-0.0, 0)", F, "-0.0"},
    {"max(2, 7, 7.0, 3)", I, "7"},
    {"abs(-3)", I, "3"},
    {"abs(-2.5)", F, "2.5"},
    {"int(2.7)", I, "2"},
    {"int(-2.7)", I, "-2"},
    {"int(-0.5)", I, "0"},
    {"float(3)", F, "3.0"},
    {"ceil_div(7, 2)", I, "4"},
    {"ceil_div(-7, 2)", I, "-3"},
    {"ceil_div(8, 2)", I, "4"},
    {"ceil_div(1, -2)", I, "0"},
    {"ceil_div(7.0, 2)", F, "4.0"},
    // Literals and whitespace.
    {"0x1F", I, "31"},
    {"0XfF", I, "255"},
    {"0o17", I, "15"},
    {"0b101", I, "5"},
    {"00", I, "0"},
    {".5", F, "0.5"},
    {"2.", F, "2.0"},
    {"1e-3", F, "0.001"},
    {"1E3", F, "1000.0"},
    {"1.5e+2", F, "150.0"},
    {"1e400", F, "inf"},
    {"1e-400", F, "0.0"},
    {"9223372036854775807", I, "9223372036854775807"},
    {" \t (1 +\n 2) ", I, "3"},
    // Float text as Python's repr.
    {"0.1 + 0.2", F, "0.30000000000000004"},
    {"1e16", F, "1e+16"},
    {"1e15", F, "1000000000000000.0"},
    {"1e-5", F, "1e-05"},
    {"0.0001", F, "0.0001"},
    {"2.5e-7", F, "2.5e-07"},
    {"-0.0", F, "-0.0"},
    {"1e22", F, "1e+22"},
    {"123456789.125", F, "123456789.125"},
    {"1e300 * 1e300", F, "inf"},
    {"-1e300 * 1e300", F, "-inf"},
    {"1e300 * 1e300 - 1e300 * 1e300", F, "nan"},
};

TEST(ExprTest, MatchesPythonFoldedAndAtRunTime) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    Expr folded = Expr::Parse(c.text);
    Value v = folded.Evaluate(nullptr);
    EXPECT_EQ(v.kind, c.kind);
    EXPECT_EQ(v.ToString(), c.repr);

    Bindings vars;
    std::string lifted = Lift(c.text, &vars);
    SCOPED_TRACE(lifted);
    Value r;
    ASSERT_EQ(EvalWith(lifted, vars, &r), EvalStatus::kOk);
    EXPECT_EQ(r.kind, c.kind);
    EXPECT_EQ(r.ToString(), c.repr);
  }
}

TEST(ExprTest, LiftReadsLiteralsFromSlots) {
  Bindings vars;
  EXPECT_EQ(Lift("-2 ** 1e-3 + x1 in [True]", &vars), "-v0 ** v1 + x1 in [v2]");
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_EQ(vars[1].second.ToString(), "0.001");
  EXPECT_EQ(vars[2].second.kind, Kind::kBool);
}

struct StatusCase {
  const char* text;
  Bindings vars;
  EvalStatus status;
};

TEST(ExprTest, DivisionByZeroAndDomainErrorsAreStatuses) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const double kInf = std::numeric_limits<double>::infinity();
  const Value i0 = Value::Int(0);
  const Value f0 = Value::Float(0.0);
  const StatusCase cases[] = {
      {"x / y", {{"x", Value::Int(1)}, {"y", i0}}, EvalStatus::kDivisionByZero},
      {"x // y", {{"x", Value::Int(1)}, {"y", i0}}, EvalStatus::kDivisionByZero},
      {"x % y", {{"x", Value::Int(1)}, {"y", i0}}, EvalStatus::kDivisionByZero},
      {"ceil_div(x, y)", {{"x", Value::Int(1)}, {"y", i0}}, EvalStatus::kDivisionByZero},
      {"x / y", {{"x", Value::Float(1.5)}, {"y", f0}}, EvalStatus::kDivisionByZero},
      {"x // y", {{"x", Value::Int(1)}, {"y", f0}}, EvalStatus::kDivisionByZero},
      {"x % y", {{"x", Value::Float(1.5)}, {"y", Value::Bool(false)}}, EvalStatus::kDivisionByZero},
      {"x % y == 0 and x > 0", {{"x", Value::Int(4)}, {"y", i0}}, EvalStatus::kDivisionByZero},
      {"x ** y", {{"x", i0}, {"y", Value::Int(-1)}}, EvalStatus::kDomainError},
      {"x ** y", {{"x", f0}, {"y", Value::Int(-1)}}, EvalStatus::kDomainError},
      {"x ** y", {{"x", Value::Float(-8.0)}, {"y", Value::Float(0.5)}}, EvalStatus::kDomainError},
      {"x ** y", {{"x", Value::Float(10.0)}, {"y", Value::Int(400)}}, EvalStatus::kDomainError},
      {"x ** y", {{"x", Value::Int(2)}, {"y", Value::Int(63)}}, EvalStatus::kDomainError},
      {"x ** y", {{"x", Value::Int(-3)}, {"y", Value::Int(40)}}, EvalStatus::kDomainError},
      {"x + y", {{"x", Value::Int(kMax)}, {"y", Value::Int(1)}}, EvalStatus::kDomainError},
      {"x - y", {{"x", Value::Int(kMin)}, {"y", Value::Int(1)}}, EvalStatus::kDomainError},
      {"x * y", {{"x", Value::Int(kMax / 2 + 1)}, {"y", Value::Int(2)}}, EvalStatus::kDomainError},
      {"-x", {{"x", Value::Int(kMin)}}, EvalStatus::kDomainError},
      {"abs(x)", {{"x", Value::Int(kMin)}}, EvalStatus::kDomainError},
      {"x // y", {{"x", Value::Int(kMin)}, {"y", Value::Int(-1)}}, EvalStatus::kDomainError},
      {"ceil_div(x, y)", {{"x", Value::Int(kMin)}, {"y", Value::Int(2)}}, EvalStatus::kDomainError},
      {"int(x)", {{"x", Value::Float(kInf)}}, EvalStatus::kDomainError},
      {"int(x)", {{"x", Value::Float(std::nan(""))}}, EvalStatus::kDomainError},
      {"int(x)", {{"x", Value::Float(1e19)}}, EvalStatus::kDomainError},
  };
  for (const StatusCase& c : cases) {
    SCOPED_TRACE(c.text);
    Value out;
    EXPECT_EQ(EvalWith(c.text, c.vars, &out), c.status);
  }
  // The edges that do fit.
  Value out;
  ASSERT_EQ(EvalWith("x % y", {{"x", Value::Int(kMin)}, {"y", Value::Int(-1)}}, &out),
            EvalStatus::kOk);
  EXPECT_EQ(out.ToString(), "0");
  ASSERT_EQ(EvalWith("int(x)", {{"x", Value::Float(-9223372036854775808.0)}}, &out),
            EvalStatus::kOk);
  EXPECT_EQ(out.ToString(), "-9223372036854775808");
  ASSERT_EQ(EvalWith("x // y", {{"x", Value::Int(kMin)}, {"y", Value::Int(1)}}, &out),
            EvalStatus::kOk);
  EXPECT_EQ(out.ToString(), "-9223372036854775808");
}

TEST(ExprTest, EvaluateThrowsForFailures) {
  try {
    Expr::Parse("1 // (2 - 2)").Evaluate(nullptr);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadInput);
    EXPECT_STREQ(e.what(), "expression \"1 // (2 - 2)\": division by zero");
  }
  try {
    Expr::Parse("0 ** -1").Evaluate(nullptr);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadInput);
    EXPECT_STREQ(e.what(),
                 "expression \"0 ** -1\": math domain error (integer overflow, 0 ** negative, "
                 "complex power, or int() of inf/nan)");
  }
  try {
    Expr::Parse("a + b").Evaluate([](const std::string& name, Value* v) {
      *v = Value::Int(1);
      return name == "a";
    });
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_STREQ(e.what(), "expression \"a + b\": unknown name \"b\"");
  }
  Value v = Expr::Parse("a * 2 + a").Evaluate([](const std::string&, Value* out) {
    *out = Value::Int(7);
    return true;
  });
  EXPECT_EQ(v.ToString(), "21");
}

}  // namespace
}  // namespace beast
