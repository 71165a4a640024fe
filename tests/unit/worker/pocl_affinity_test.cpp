// When the device worker pins PoCL's kernel threads: only where nobody set
// PoCL's threads already and the worker may use every CPU from 0 up.
#include "beast/worker/pocl_affinity.hpp"

#include <gtest/gtest.h>

namespace beast {
namespace {

TEST(PoclAffinity, PinsWhenAloneOnEveryCpu) {
  const PoclAffinityChoice choice = ChoosePoclAffinity(nullptr, nullptr, 2, 2, true);
  EXPECT_TRUE(choice.pin);
  EXPECT_EQ(choice.reason, "kernel threads pinned, one per CPU");
}

TEST(PoclAffinity, LeavesAUsersSettingsAlone) {
  PoclAffinityChoice choice = ChoosePoclAffinity("0", nullptr, 2, 2, true);
  EXPECT_FALSE(choice.pin);
  EXPECT_EQ(choice.reason, "POCL_AFFINITY is set: left as it is");
  // MPI ranks sharing a node give each PoCL one thread: pinning would put
  // every rank's thread on CPU 0.
  choice = ChoosePoclAffinity(nullptr, "POCL_CPU_MAX_CU_COUNT", 16, 16, true);
  EXPECT_FALSE(choice.pin);
  EXPECT_EQ(choice.reason, "POCL_CPU_MAX_CU_COUNT is set: the threads were decided, left unpinned");
}

TEST(PoclAffinity, LeavesThreadsUnpinnedOnARestrictedOrSingleCpu) {
  // taskset -c 2,3 on a 4-CPU machine: PoCL would pin threads to CPUs 0 and 1.
  PoclAffinityChoice choice = ChoosePoclAffinity(nullptr, nullptr, 4, 2, false);
  EXPECT_FALSE(choice.pin);
  EXPECT_EQ(choice.reason, "the process may not run on every CPU: threads left unpinned");
  choice = ChoosePoclAffinity(nullptr, nullptr, 4, 4, false);
  EXPECT_FALSE(choice.pin);
  choice = ChoosePoclAffinity(nullptr, nullptr, 1, 1, true);
  EXPECT_FALSE(choice.pin);
  EXPECT_EQ(choice.reason, "one CPU: nothing to pin");
}

}  // namespace
}  // namespace beast
