// Progress line (progress.hpp).
#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace beast {

Progress::Progress(bool enabled, std::string label, uint64_t total)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO)), label_(std::move(label)), total_(total),
      start_(std::chrono::steady_clock::now()), last_print_(start_) {}

void Progress::Step(bool ok, double best_ms, double best_gflops) {
  ++done_;
  if (!ok) ++failures_;
  best_ms_ = best_ms;
  best_gflops_ = best_gflops;
  auto now = std::chrono::steady_clock::now();
  double since = std::chrono::duration<double>(now - last_print_).count();
  if (tty_ || since >= 5.0 || done_ == total_) Print(false);
}

void Progress::Finish() {
  if (enabled_ && tty_ && done_ > 0) std::fputc('\n', stderr);
}

void Progress::Print(bool) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  last_print_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double eta = done_ ? elapsed / done_ * (total_ - done_) : 0;
  char best[64] = "none yet";
  if (best_ms_ >= 0) std::snprintf(best, sizeof best, "%.4f ms (%.1f GFLOP/s)", best_ms_, best_gflops_);
  std::fprintf(stderr, "%s%s %llu/%llu, %llu failed, best %s, ETA %dm%02ds%s", tty_ ? "\r\033[K" : "",
               label_.c_str(), (unsigned long long)done_, (unsigned long long)total_,
               (unsigned long long)failures_, best, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60,
               tty_ ? "" : "\n");
  std::fflush(stderr);
}

}  // namespace beast
