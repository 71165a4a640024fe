// Tests of the error tiers: code names for messages, and BEAST_CHECK's abort.
#include "beast/core/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace beast {
namespace {

TEST(ErrorTest, CodeNames) {
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kBadArgument), "bad argument");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kBadInput), "bad input");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kNotFound), "not found");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kEmptySpace), "empty space");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kDatabase), "database error");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kEnvironment), "environment error");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kInternal), "internal error");
}

TEST(ErrorTest, ErrorCarriesCodeAndMessage) {
  Error e(ErrorCode::kNotFound, "unknown device opencl:7");
  EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  EXPECT_STREQ(e.what(), "unknown device opencl:7");
}

int Half(int v) {
  BEAST_CHECK(v % 2 == 0);
  return v / 2;
}

TEST(ErrorDeathTest, CheckAbortsWithConditionFileAndLine) {
  EXPECT_EQ(Half(4), 2);
  EXPECT_DEATH(Half(3), "beast: internal check failed: v % 2 == 0 at .*error_test.cpp:[0-9]+");
}

}  // namespace
}  // namespace beast
