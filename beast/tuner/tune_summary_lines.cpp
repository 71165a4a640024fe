// Summary lines on programs and confirmations (tune_summary_lines.hpp).
#include "tune_summary_lines.hpp"

#include <cstdio>

namespace beast {

std::string ConfirmationLines(const PairSummary& p) {
  if (p.confirmed_candidates < 2 || !p.has_best) return "";
  char line[512];
  std::snprintf(line, sizeof line,
                "      confirmed: fastest of the top %d re-measured side by side, %.4f ms (%s)\n",
                p.confirmed_candidates, p.confirmed_ms,
                p.confirmed_now ? "this run" : "an earlier run");
  std::string out = line;
  if (!p.unconfirmed_best.empty()) out += "      by median alone: " + p.unconfirmed_best + "\n";
  return out;
}

std::string ProgramsLine(const TuneSummary& s) {
  char line[1024];
  std::snprintf(line, sizeof line, "programs: %llu compiled now, %llu from the cache%s%s",
                static_cast<unsigned long long>(s.programs_compiled),
                static_cast<unsigned long long>(s.programs_from_cache),
                s.cache_dir.empty() ? "" : " ",
                s.cache_dir.empty() ? "(no cache)" : s.cache_dir.c_str());
  std::string out = line;
  if (s.compile_jobs > 0) {
    std::snprintf(line, sizeof line,
                  "; compile pool: %d workers%s, the device waited %.1f s for it", s.compile_jobs,
                  s.pool_paused_while_timing ? " (stopped while kernels run)" : "",
                  s.compile_wait_seconds);
    out += line;
  } else {
    out += "; no compile pool";
  }
  out += "\n";
  if (!s.compile_pool_error.empty()) out += "compile pool: " + s.compile_pool_error + "\n";
  return out;
}

}  // namespace beast
