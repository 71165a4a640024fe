// The simulated wall clock of a compile pool and a device (pipeline_clock.hpp).
#include "beast/search/pipeline_clock.hpp"

#include <algorithm>

#include "beast/core/error.hpp"

namespace beast {

PipelineClock::PipelineClock(int workers) {
  BEAST_CHECK(workers >= 1);
  for (int w = 0; w < workers; ++w) worker_free_.push(0.0);
}

void PipelineClock::Proposed(double compile_seconds) {
  const double start = std::max(device_free_, worker_free_.top());
  worker_free_.pop();
  worker_free_.push(start + compile_seconds);
  build_done_.push_back(start + compile_seconds);
}

double PipelineClock::Measure(double run_seconds) {
  BEAST_CHECK(measured_ < build_done_.size());
  device_free_ = std::max(device_free_, build_done_[measured_++]) + run_seconds;
  return device_free_;
}

}  // namespace beast
