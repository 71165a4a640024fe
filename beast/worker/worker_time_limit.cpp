// Time limits of a config on the device worker (worker_time_limit.hpp).
#include "beast/worker/worker_time_limit.hpp"

#include <algorithm>
#include <cstdio>

namespace beast {

std::optional<double> TimeLimit::RunSeconds(double compile_ms) const {
  if (!best_ms) return std::nullopt;
  return kRunGraceSeconds + kJitFactor * compile_ms / 1000.0 +
         kSlowdownFactor * *best_ms / 1000.0 * launches;
}

std::string TimeLimit::DescribeAbsolute(double elapsed_seconds) const {
  char text[256];
  std::snprintf(text, sizeof text,
                "killed after %.1f s: past the limit of %g s per config (--timeout-seconds)",
                elapsed_seconds, timeout_seconds);
  return text;
}

std::string TimeLimit::DescribeSetup(double elapsed_seconds) const {
  char text[256];
  std::snprintf(text, sizeof text,
                "killed after %.1f s making the problem's inputs and reference on the host: past "
                "the limit of %g s for that",
                elapsed_seconds, SetupSeconds());
  return text;
}

double TimeLimit::SetupSeconds() const { return setup_seconds ? *setup_seconds : timeout_seconds; }

std::string TimeLimit::DescribeRun(double compile_ms, double run_seconds) const {
  char text[384];
  std::snprintf(
      text, sizeof text,
      "killed after running for %.1f s: past the limit of %.1f s after the build (%g s + %g x "
      "build %.3f s + %g x best %.4g ms x %d launches)",
      run_seconds, RunSeconds(compile_ms).value_or(0), kRunGraceSeconds, kJitFactor,
      compile_ms / 1000.0, kSlowdownFactor, best_ms.value_or(0), launches);
  return text;
}

}  // namespace beast
