// Whether the device worker asks PoCL (the CPU OpenCL driver) to pin its
// kernel threads, one to each core (POCL_AFFINITY=1), before the OpenCL
// platform is opened.
#pragma once

#include <string>

namespace beast {

// The decision and its reason, from the environment and the process's CPU
// set: pin when neither POCL_AFFINITY nor POCL_MAX_PTHREAD_COUNT is set (a
// user who set either decided the threads) and the process may run on
// every online CPU, 0 to n-1 (PoCL pins thread i to CPU i).
struct PoclAffinityChoice {
  bool pin = false;
  std::string reason;
};
PoclAffinityChoice ChoosePoclAffinity(const char* pocl_affinity, const char* max_pthread_count,
                                      int online_cpus, int allowed_cpus, bool allowed_are_first);

// Sets POCL_AFFINITY=1 in this process's environment when ChoosePoclAffinity
// says so for the real environment and CPU set.
void PinPoclThreadsWhereAlone();

}  // namespace beast
