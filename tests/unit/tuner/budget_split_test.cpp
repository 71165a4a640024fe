// The time budget's split over pairs: by weight x FLOPs, with a floor of a
// quarter of an equal share.
#include "beast/tuner/budget_split.hpp"

#include <gtest/gtest.h>

namespace beast {
namespace {

TEST(BudgetSplit, EachPairGetsItsWorthOverTheWorthLeft) {
  // Worths 6, 3, 1 of 10: the first gets 0.6 of the time left; then, of
  // what is left after it, the second 3/4 and the last all.
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({6, 3, 1}), 0.6);
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({3, 1}), 0.75);
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({1}), 1.0);
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({}), 0.0);
}

TEST(BudgetSplit, ASmallLayerStillGetsAQuarterOfAnEqualShare) {
  // 1 of 1001 would be 0.1%: the floor is 0.25 / 2.
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({1, 1000}), 0.125);
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({0, 0}), 0.5);  // no worth known: equal shares
}

TEST(BudgetSplit, AHeavyLayerLeavesEachLaterOneItsFloor) {
  // 1000 of 1001 would be 99.9%: the small layer after it keeps 0.25 / 2.
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({1000, 1}), 0.875);
  // Three pairs: each of the two after it keeps 0.25 / 3.
  EXPECT_DOUBLE_EQ(ShareOfTimeLeft({1000, 1, 1}), 1.0 - 2 * 0.25 / 3);
}

TEST(BudgetSplit, WorthIsWeightTimesFlops) {
  const Problem gemm = Problem::Parse("gemm:M=64,N=32,K=16");
  EXPECT_DOUBLE_EQ(PairWorth(gemm, 3), 3.0 * 2 * 64 * 32 * 16);
  EXPECT_DOUBLE_EQ(PairWorth(gemm, 0), 2.0 * 64 * 32 * 16);  // a weight below 1 counts as 1
}

}  // namespace
}  // namespace beast
