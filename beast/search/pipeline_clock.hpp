// PipelineClock: the wall clock of a tuning run on a device that measures
// faster than it compiles (a GPU), simulated from recorded costs for offline
// replay. `workers` compile workers build the proposed configs in trajectory
// order as soon as they are proposed and a worker is free; one device
// measures them in that order, each when its build is done. A config is
// proposed when the search driver proposes its batch, which is when the
// device has finished the measurement before (the tuner proposes between
// measurements). The strategy's own time is left out (it is under 5% of a
// run's; `beast replay` reports it apart).
#pragma once

#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

namespace beast {

class PipelineClock {
 public:
  explicit PipelineClock(int workers);
  // The next config in trajectory order is proposed now (when the device
  // became free) and takes `compile_seconds` to build.
  void Proposed(double compile_seconds);
  // The device measures the next config in order (it must have been
  // proposed) for `run_seconds`; returns the clock when it is done.
  double Measure(double run_seconds);
  double now() const { return device_free_; }
  size_t proposed() const { return build_done_.size(); }

 private:
  std::priority_queue<double, std::vector<double>, std::greater<double>> worker_free_;
  std::vector<double> build_done_;  // per config in trajectory order
  size_t measured_ = 0;
  double device_free_ = 0;
};

}  // namespace beast
