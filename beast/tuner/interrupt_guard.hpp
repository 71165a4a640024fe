// InterruptGuard: while a tuning run is under way, Ctrl-C, SIGTERM and SIGHUP
// (the terminal went away) stop it: every wait returns within a moment, the
// workers are reaped, the run is recorded interrupted and the summary
// printed. A second signal changes nothing: the stop it asks for is already
// under way, and dying now would leave the run marked running with no
// summary. Used by the run on one device and by every rank under mpirun
// (which passes Ctrl-C and SIGTERM on to each rank).
#pragma once

#include <signal.h>

#include <atomic>

namespace beast {

// Ctrl-C, SIGTERM and SIGHUP stop the run cleanly; the previous handlers come back
// when it ends, unless it was stopped. No SA_RESTART: a wait in progress
// returns at once.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  // Turns true at the first signal.
  static const std::atomic<bool>& Stop();

 private:
  struct sigaction previous_int_ = {}, previous_term_ = {}, previous_hup_ = {};
};

}  // namespace beast
