// The end of a pair's tuning: its top K ok configs of this template version
// (by median, from this run or earlier ones) are re-measured side by side in
// the device worker (confirm_measure.hpp) and the result is recorded as a
// confirmation (results_db/confirmation.hpp), whose fastest config is then
// the winner everywhere (beast query --best, export). A pair whose latest
// confirmation compared exactly these configs is not re-measured: a resumed
// run does not redo it.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "beast/tuner/tune_plan.hpp"
#include "beast/worker/worker_client.hpp"
#include "harness/measure/timing.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {

struct ConfirmContext {
  DeviceCalls& worker;  // the local device worker, or a rank of an MPI run
  results_db::Store& store;
  harness::Renderer& renderer;
  const DeviceInfo& device;
  int64_t device_id;
  int64_t run_id;
  harness::BenchmarkPlan plan;  // rounds: warm-up, min and max reps, time, confidence bound
  double timeout_seconds;       // the whole re-measurement
  int top;                      // K
  bool progress;                // a line on stderr
};

enum class ConfirmStatus {
  kNothing,      // fewer than two ok configs: nothing to compare
  kAlready,      // the latest confirmation compared these very configs
  kDone,         // re-measured now and recorded
  kInterrupted,  // stopped first; nothing recorded
};

// Confirms the winner of `pair` (its problem and template rows given).
ConfirmStatus ConfirmPair(ConfirmContext& context, const PlannedPair& pair, int64_t problem_id,
                          int64_t template_id, const std::atomic<bool>& stop);

}  // namespace beast
