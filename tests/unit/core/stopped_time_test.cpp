// StoppedTime (beast/core/stopped_time.hpp): a waiting loop that wakes more
// than a second after it was due counts the time since as stood stopped;
// one that wakes on time, or early, counts nothing.
#include "beast/core/stopped_time.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace beast {
namespace {

TEST(StoppedTime, AWakeMoreThanASecondLateIsTimeStoodStopped) {
  StoppedTime watch;
  EXPECT_EQ(watch.Stopped(), StoppedTime::Clock::duration::zero());
  watch.Waiting(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // late, but not a second
  EXPECT_EQ(watch.Stopped(), StoppedTime::Clock::duration::zero());
  watch.Waiting(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // as if stopped
  const auto stood = watch.Stopped();
  EXPECT_GE(stood, std::chrono::milliseconds(1290));
  EXPECT_EQ(watch.Stopped(), StoppedTime::Clock::duration::zero());  // counted once
  watch.Waiting(std::chrono::seconds(5));                            // woken early (data came)
  EXPECT_EQ(watch.Stopped(), StoppedTime::Clock::duration::zero());
}

}  // namespace
}  // namespace beast
