// Whether the device worker asks PoCL (the CPU OpenCL driver) to pin its
// kernel threads, one to each CPU (POCL_AFFINITY=1), before the OpenCL
// platform is opened.
#pragma once

#include <string>

namespace beast {

// The decision and its reason, from the environment and the process's CPU
// set: pin when POCL_AFFINITY is unset, no thread count is set
// (`thread_count_variable`: the first of POCL_MAX_PTHREAD_COUNT, PoCL 3's,
// POCL_CPU_MAX_CU_COUNT, later PoCLs', and POCL_MAX_COMPUTE_UNITS that is
// set, else null: a user, or ranks sharing a node, decided the threads) and
// the process may run on every online CPU, 0 to n-1 (PoCL pins thread i to
// CPU i).
struct PoclAffinityChoice {
  bool pin = false;
  std::string reason;
};
PoclAffinityChoice ChoosePoclAffinity(const char* pocl_affinity, const char* thread_count_variable,
                                      int online_cpus, int allowed_cpus, bool allowed_are_first);

// Sets POCL_AFFINITY=1 in this process's environment when ChoosePoclAffinity
// says so for the real environment and CPU set.
void PinPoclThreadsWhereAlone();

}  // namespace beast
