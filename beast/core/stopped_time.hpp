// StoppedTime: how long a waiting loop's process stood stopped (Ctrl-Z:
// SIGTSTP to the terminal's process group, then fg). The steady clock runs
// on while a process is stopped, so a deadline taken before the stop has
// passed the moment the process goes on, though nothing it waited for had
// time to run (the children it waits on were stopped with it). A loop that
// waits in short slices tells when it was due awake again; waking more than
// a second past that, it was stopped, and its deadlines move back by the
// time it stood. (A suspended machine stops the steady clock too: that
// needs nothing.)
#pragma once

#include <chrono>

namespace beast {

class StoppedTime {
 public:
  using Clock = std::chrono::steady_clock;

  StoppedTime() : due_(Clock::now()) {}

  // The time stood stopped since the loop was last due awake (zero unless
  // it woke more than a second late); call at each turn, before working out
  // what is left of a deadline, and move the deadline back by it.
  Clock::duration Stopped() {
    const Clock::time_point now = Clock::now();
    const Clock::duration late = now - due_;
    due_ = now;
    return late > std::chrono::seconds(1) ? late : Clock::duration::zero();
  }
  // The loop waits `slice` next: it is due awake again after it.
  void Waiting(Clock::duration slice) { due_ = Clock::now() + slice; }

 private:
  Clock::time_point due_;
};

}  // namespace beast
