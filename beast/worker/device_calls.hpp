// DeviceCalls: what a tuning run asks of a device besides its configs — a
// vendor library's routine on a problem, and the side-by-side re-measurement
// of a pair's top configs. The local device worker answers them
// (WorkerClient), and so does a device rank of a run under mpirun
// (beast/cluster/), so the baseline and confirmation steps are one code for
// both.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "harness/measure/baseline_result.hpp"

namespace beast {

class DeviceCalls {
 public:
  virtual ~DeviceCalls() = default;
  // The routine's result; nullopt when `stop` turned true first. A device
  // that dies under it comes back `crashed`, one that runs past
  // `timeout_seconds` `timeout` (its routine set to `routine`).
  virtual std::optional<harness::BaselineResult> MeasureBaseline(const BaselineRequest& request,
                                                                 const std::string& routine,
                                                                 double timeout_seconds,
                                                                 const std::atomic<bool>& stop) = 0;
  // One result per candidate; nullopt when `stop` turned true first.
  virtual std::optional<std::vector<ConfirmResult>> Confirm(const ConfirmRequest& request,
                                                            double timeout_seconds,
                                                            const std::atomic<bool>& stop) = 0;
};

}  // namespace beast
