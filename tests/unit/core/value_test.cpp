// Tests of Value: Python's repr as text, and Python's numeric equality.
#include "beast/core/value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace beast {
namespace {

TEST(ValueTest, ToStringIsPythonRepr) {
  EXPECT_EQ(Value::Int(0).ToString(), "0");
  EXPECT_EQ(Value::Int(-42).ToString(), "-42");
  EXPECT_EQ(Value::Int(std::numeric_limits<int64_t>::min()).ToString(), "-9223372036854775808");
  EXPECT_EQ(Value::Bool(true).ToString(), "True");
  EXPECT_EQ(Value::Bool(false).ToString(), "False");
  EXPECT_EQ(Value().ToString(), "0");
  // Each expected text is repr(float) in CPython 3.
  const struct {
    double v;
    const char* repr;
  } floats[] = {
      {0.1, "0.1"},
      {0.5, "0.5"},
      {0.25, "0.25"},
      {2.0, "2.0"},
      {-2.0, "-2.0"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {100.0, "100.0"},
      {0.3, "0.3"},
      {1.0 / 3.0, "0.3333333333333333"},
      {2.0 / 3.0, "0.6666666666666666"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e-05, "1e-05"},
      {1.5e-05, "1.5e-05"},
      {0.0001, "0.0001"},
      {0.00012345, "0.00012345"},
      {1e+20, "1e+20"},
      {1e+16, "1e+16"},
      {1e+15, "1000000000000000.0"},
      {1234567890123456.0, "1234567890123456.0"},
      {12345678901234567.0, "1.2345678901234568e+16"},
      {123456789.125, "123456789.125"},
      {1e+22, "1e+22"},
      {1e+100, "1e+100"},
      {1e-100, "1e-100"},
      {5e-324, "5e-324"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {-2.5e-07, "-2.5e-07"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::nan(""), "nan"},
  };
  for (const auto& f : floats) EXPECT_EQ(Value::Float(f.v).ToString(), f.repr) << f.repr;
}

TEST(ValueTest, EqualsIsPythonEquality) {
  EXPECT_TRUE(Value::Int(1).Equals(Value::Float(1.0)));
  EXPECT_TRUE(Value::Float(1.0).Equals(Value::Bool(true)));
  EXPECT_TRUE(Value::Bool(false).Equals(Value::Int(0)));
  EXPECT_TRUE(Value::Float(-0.0).Equals(Value::Int(0)));
  EXPECT_FALSE(Value::Int(1).Equals(Value::Float(1.5)));
  EXPECT_FALSE(Value::Int(2).Equals(Value::Bool(true)));
  // 2**53 + 1 is not the float 2**53, though converting it to double rounds.
  EXPECT_FALSE(Value::Int(9007199254740993).Equals(Value::Float(9007199254740992.0)));
  EXPECT_TRUE(Value::Int(9007199254740992).Equals(Value::Float(9007199254740992.0)));
  EXPECT_FALSE(
      Value::Int(std::numeric_limits<int64_t>::max()).Equals(Value::Float(9223372036854775808.0)));
  EXPECT_FALSE(Value::Float(std::nan("")).Equals(Value::Float(std::nan(""))));
  EXPECT_FALSE(Value::Float(std::numeric_limits<double>::infinity())
                   .Equals(Value::Int(std::numeric_limits<int64_t>::max())));
}

TEST(ValueTest, TruthinessAndDoubles) {
  EXPECT_FALSE(Value::Float(0.0).Truthy());
  EXPECT_FALSE(Value::Float(-0.0).Truthy());
  EXPECT_TRUE(Value::Float(std::nan("")).Truthy());
  EXPECT_TRUE(Value::Int(-1).Truthy());
  EXPECT_FALSE(Value::Bool(false).Truthy());
  EXPECT_EQ(Value::Bool(true).AsDouble(), 1.0);
  EXPECT_EQ(Value::Int(-3).AsDouble(), -3.0);
}

}  // namespace
}  // namespace beast
