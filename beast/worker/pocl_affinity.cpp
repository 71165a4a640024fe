// PoCL's kernel threads pinned, one per CPU, in the device worker
// (pocl_affinity.hpp). Why: unpinned, PoCL's threads are woken where they
// last ran, and after the worker's own thread has used one core (validating
// a config's first result, say) both of a 2-core machine's kernel threads
// were found sharing the other core for a whole measurement, about 10 ms of
// launches: the same config then measured 0.54 or 1.06 ms from one run to
// the next, at random. Pinned, 0.535-0.554 ms in six runs.
#include "beast/worker/pocl_affinity.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

namespace beast {

PoclAffinityChoice ChoosePoclAffinity(const char* pocl_affinity, const char* thread_count_variable,
                                      int online_cpus, int allowed_cpus, bool allowed_are_first) {
  if (pocl_affinity) return {false, "POCL_AFFINITY is set: left as it is"};
  if (thread_count_variable)
    return {false, std::string(thread_count_variable) +
                       " is set: the threads were decided, left unpinned"};
  if (online_cpus < 2) return {false, "one CPU: nothing to pin"};
  if (allowed_cpus != online_cpus || !allowed_are_first)
    return {false, "the process may not run on every CPU: threads left unpinned"};
  return {true, "kernel threads pinned, one per CPU"};
}

void PinPoclThreadsWhereAlone() {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  int allowed_count = 0;
  bool first = true;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    allowed_count = CPU_COUNT(&allowed);
    for (long i = 0; i < online && i < CPU_SETSIZE; ++i) first = first && CPU_ISSET(i, &allowed);
  }
  const char* thread_count_variable = nullptr;
  for (const char* name :
       {"POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_COUNT", "POCL_MAX_COMPUTE_UNITS"}) {
    if (!thread_count_variable && std::getenv(name)) thread_count_variable = name;
  }
  const PoclAffinityChoice choice =
      ChoosePoclAffinity(std::getenv("POCL_AFFINITY"), thread_count_variable,
                         static_cast<int>(online), allowed_count, first);
  if (choice.pin) setenv("POCL_AFFINITY", "1", 0);
}

}  // namespace beast
