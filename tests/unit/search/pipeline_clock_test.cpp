// PipelineClock: builds start when proposed and a worker is free, in
// trajectory order; the device measures in that order, each when built.
#include "beast/search/pipeline_clock.hpp"

#include <gtest/gtest.h>

namespace beast {
namespace {

TEST(PipelineClock, TwoWorkersAndOneDeviceByHand) {
  PipelineClock clock(2);
  clock.Proposed(1.0);  // worker A: 0 -> 1
  clock.Proposed(2.0);  // worker B: 0 -> 2
  clock.Proposed(3.0);  // waits for A: 1 -> 4
  EXPECT_EQ(clock.proposed(), 3u);
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 1.5);  // built at 1
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 2.5);  // built at 2
  clock.Proposed(1.0);                        // proposed at 2.5, B free since 2: -> 3.5
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 4.5);  // built at 4
  EXPECT_DOUBLE_EQ(clock.Measure(0.5), 5.0);  // built at 3.5, the device busy until 4.5
  EXPECT_DOUBLE_EQ(clock.now(), 5.0);
}

TEST(PipelineClock, ABuildNeverStartsBeforeItIsProposed) {
  PipelineClock clock(4);
  clock.Proposed(1.0);
  EXPECT_DOUBLE_EQ(clock.Measure(10.0), 11.0);
  clock.Proposed(1.0);  // proposed at 11 though three workers idled since 0
  EXPECT_DOUBLE_EQ(clock.Measure(1.0), 13.0);
}

}  // namespace
}  // namespace beast
