// Tests of Config: its key read back, and the same point in another
// parameter order (a reordered template, T1 file or Kernel Tuner cache).
#include "beast/core/config.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace beast {
namespace {

const Config kPoint({"MWG", "NWG", "VEC"}, {Value::Int(32), Value::Int(64), Value::Bool(true)});

TEST(ConfigTest, TheKeyReadsBackAsTheSamePoint) {
  EXPECT_EQ(kPoint.Key(), "MWG=32,NWG=64,VEC=True");
  const Config back = Config::ParseKey(kPoint.Key());
  EXPECT_EQ(back.names(), kPoint.names());
  EXPECT_EQ(back.Key(), kPoint.Key());
}

TEST(ConfigTest, InOrderIsTheSamePointWithItsParametersReordered) {
  const std::optional<Config> reordered = kPoint.InOrder({"VEC", "MWG", "NWG"});
  ASSERT_TRUE(reordered.has_value());
  EXPECT_EQ(reordered->Key(), "VEC=True,MWG=32,NWG=64");
  EXPECT_EQ(reordered->InOrder(kPoint.names())->Key(), kPoint.Key());
  EXPECT_EQ(kPoint.InOrder(kPoint.names())->Key(), kPoint.Key());
}

TEST(ConfigTest, InOrderOfOtherParametersIsNothing) {
  EXPECT_FALSE(kPoint.InOrder({"MWG", "NWG"}).has_value());                // one fewer
  EXPECT_FALSE(kPoint.InOrder({"MWG", "NWG", "VEC", "KWG"}).has_value());  // one more
  EXPECT_FALSE(kPoint.InOrder({"MWG", "NWG", "KWG"}).has_value());         // one other
  EXPECT_FALSE(kPoint.InOrder({"MWG", "MWG", "NWG"}).has_value());         // one twice
}

}  // namespace
}  // namespace beast
