// Tests of expression parsing: every syntax error with its exact message and
// 1-based character position, and the free names an expression reads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/expr/expr.hpp"

namespace beast {
namespace {

struct ErrorCase {
  std::string text;
  std::string message;  // after 'expression "TEXT": '
};

TEST(ExprParseTest, SyntaxErrorsNameThePosition) {
  const std::string kList = "a list or tuple is only allowed right of 'in' or 'not in'";
  const ErrorCase cases[] = {
      {"a +* b", "position 4: expected a value"},
      {"1 +", "position 4: expected a value"},
      {"not", "position 4: expected a value"},
      {"(", "position 2: expected a value"},
      {"x < ", "position 5: expected a value"},
      {"()", "position 1: " + kList},
      {"", "position 1: empty expression"},
      {"   ", "position 1: empty expression"},
      {"(a + b", "position 1: '(' was never closed"},
      {"((a) + b", "position 1: '(' was never closed"},
      {"x in [1, 2", "position 6: '[' was never closed"},
      {"max(1, 2", "position 4: '(' was never closed"},
      {"a + b)", "position 6: unmatched ')'"},
      {"a]", "position 2: unmatched ']'"},
      {"(1 2)", "position 4: expected ')'"},
      {"(1, 2 3)", "position 7: expected ',' or ')'"},
      {"min(1 2)", "position 7: expected ',' or ')'"},
      {"x in [1 2]", "position 9: expected ',' or ']'"},
      {"a b", "position 3: unexpected 'b'"},
      {"1 2", "position 3: unexpected '2'"},
      {"a not b", "position 3: unexpected 'not'"},
      {"x if y", "position 7: expected 'else'"},
      {"x if y z", "position 8: expected 'else'"},
      {"foo(1)", "position 1: unknown function 'foo' (known: min, max, abs, int, float, ceil_div)"},
      {"2 * Max(1, 2)",
       "position 5: unknown function 'Max' (known: min, max, abs, int, float, ceil_div)"},
      {"min(1)", "position 1: min() takes at least 2 arguments (1 given)"},
      {"max()", "position 1: max() takes at least 2 arguments (0 given)"},
      {"1 + abs(1, 2)", "position 5: abs() takes exactly 1 argument (2 given)"},
      {"int()", "position 1: int() takes exactly 1 argument (0 given)"},
      {"ceil_div(1)", "position 1: ceil_div() takes exactly 2 arguments (1 given)"},
      {"[1, 2]", "position 1: " + kList},
      {"x + (1, 2)", "position 5: " + kList},
      {"(1,)", "position 1: " + kList},
      {"min([1], 2)", "position 5: " + kList},
      {"x in [1] == 1", "position 6: " + kList},
      {"x in [[1]]", "position 7: " + kList},
      {"x in y", "position 6: 'in' needs a list or tuple on its right, such as [1, 2, 4]"},
      {"x not in 3", "position 10: 'not in' needs a list or tuple on its right, such as [1, 2, 4]"},
      {"x in (1)", "position 7: 'in' needs a list or tuple on its right, such as [1, 2, 4]"},
      {"a = b", "position 3: unexpected '=' (compare with '==')"},
      {"!a", "position 1: unexpected '!' (negate with 'not')"},
      {"a & b", "position 3: '&' is not supported (use 'and')"},
      {"a | b", "position 3: '|' is not supported (use 'or')"},
      {"~a", "position 1: '~' is not supported"},
      {"a << 2", "position 3: '<<' is not supported"},
      {"a $ b", "position 3: unexpected character '$'"},
      {"x + \xc3\xa9", "position 5: unexpected non-ASCII character"},
      {"x is 1", "position 3: 'is' is not supported"},
      {"None", "position 1: 'None' is not supported"},
      {"010", "position 1: leading zeros in decimal integer literals are not permitted: '010'"},
      {"1 + 99999999999999999999",
       "position 5: integer literal 99999999999999999999 is out of range (64-bit)"},
      {"0x8000000000000000",
       "position 1: integer literal 0x8000000000000000 is out of range (64-bit)"},
      {"1e", "position 1: invalid number literal '1e'"},
      {"1e+", "position 1: invalid number literal '1e+'"},
      {"2x", "position 1: invalid number literal '2x'"},
      {"1..2", "position 1: invalid number literal '1..'"},
      {"0x", "position 1: invalid number literal '0x'"},
      {"0b102", "position 1: invalid number literal '0b102'"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      Expr::Parse(c.text);
      ADD_FAILURE() << "parsed";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadInput);
      EXPECT_EQ(std::string(e.what()), "expression \"" + c.text + "\": " + c.message);
    }
  }
}

TEST(ExprParseTest, DeepNestingIsAnErrorNotACrash) {
  std::string text = std::string(300, '(') + "1" + std::string(300, ')');
  try {
    Expr::Parse(text);
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "expression \"" + text + "\": position 201: expression nested too deeply");
  }
  std::string minus = std::string(300, '-') + "1";
  EXPECT_THROW(Expr::Parse(minus), Error);
  // Long operator chains grow the tree without nesting; they are bounded too.
  std::string sum = "x";
  for (int k = 0; k < 250; ++k) sum += " + x";
  try {
    Expr::Parse(sum);
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "expression \"" + sum + "\": position 1: expression nested too deeply");
  }
  // Nesting a real constraint needs is fine.
  EXPECT_EQ(Expr::Parse(std::string(50, '(') + "2" + std::string(50, ')') + " ** 3")
                .Evaluate(nullptr)
                .ToString(),
            "8");
}

TEST(ExprParseTest, NamesInOrderOfFirstUse) {
  Expr e = Expr::Parse("b * a + max(c, a) if b else d_1 in [e, b]");
  EXPECT_EQ(e.Names(), (std::vector<std::string>{"b", "a", "c", "d_1", "e"}));
  EXPECT_FALSE(e.IsConstant());
  EXPECT_EQ(e.text(), "b * a + max(c, a) if b else d_1 in [e, b]");
  Expr constant = Expr::Parse("ceil_div(7, 2) * True");
  EXPECT_TRUE(constant.Names().empty());
  EXPECT_TRUE(constant.IsConstant());
  // Keywords are not names; words that merely contain them are.
  EXPECT_EQ(Expr::Parse("android or notx and in_ or iffy").Names(),
            (std::vector<std::string>{"android", "notx", "in_", "iffy"}));
}

TEST(ExprParseTest, ExprCopiesShareTheParse) {
  Expr a = Expr::Parse("x + 1");
  Expr b = a;
  Expr c;
  c = b;
  Expr d = std::move(b);
  EXPECT_EQ(c.text(), "x + 1");
  EXPECT_EQ(d.Names(), (std::vector<std::string>{"x"}));
  Value v = c.Evaluate([](const std::string&, Value* out) {
    *out = Value::Int(41);
    return true;
  });
  EXPECT_EQ(v.ToString(), "42");
}

}  // namespace
}  // namespace beast
