// Progress of a tuning run on stderr: a live line rewritten in place on a
// terminal, a plain line every few seconds otherwise — done/total, failures,
// best so far and ETA.
#pragma once

#include <chrono>
#include <string>

namespace beast {

class Progress {
 public:
  Progress(bool enabled, std::string label, uint64_t total);
  // One more config done; ok=false counts a failure; best_ms < 0: none yet.
  void Step(bool ok, double best_ms, double best_gflops);
  void Finish();

 private:
  void Print(bool final_line);
  bool enabled_;
  bool tty_;
  std::string label_;
  uint64_t total_, done_ = 0, failures_ = 0;
  double best_ms_ = -1, best_gflops_ = 0;
  std::chrono::steady_clock::time_point start_, last_print_;
};

}  // namespace beast
