// The measurer of a live tuning run (tune_loop.hpp): each config's program
// comes from the program supply (rendered now, or built ahead by the compile
// pool), the device worker builds or loads, validates and times it under a
// time limit that tightens once the problem has a best time, post-compile
// constraints are checked on the built kernel, and at the end of each pair
// its top configs are re-measured side by side to confirm the winner.
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "beast/compile/program_supply.hpp"
#include "beast/tuner/supply_cost.hpp"
#include "beast/tuner/tune_loop.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/worker_client.hpp"
#include "harness/measure/timing.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {

class DeviceMeasurer : public ConfigMeasurer {
 public:
  struct Context {
    const TuneOptions& options;
    const DeviceInfo& device;
    harness::Renderer& renderer;
    WorkerClient& worker;
    results_db::Store& store;
    ProgramSupply& supply;
    harness::BenchmarkPlan plan;
    int64_t device_id;
    int64_t run_id;
    TuneSummary& summary;  // what measuring costs is added here
  };
  explicit DeviceMeasurer(Context context) : c_(context) {}

  Status Success() const override { return Status::kOk; }
  void BeginPair(const PlannedPair& pair, const PairIds& ids, double* best_ms,
                 double* best_gflops) override;
  void Upcoming(const PlannedPair& pair, const std::vector<Config>& configs) override;
  std::optional<Outcome> Measure(const PlannedPair& pair, const Config& config,
                                 const std::atomic<bool>& stop) override;
  void EndPair(const PlannedPair& pair, const PairIds& ids, const std::atomic<bool>& stop,
               PairSummary* summary) override;

 private:
  void Confirm(const PlannedPair& pair, const PairIds& ids, const std::atomic<bool>& stop,
               PairSummary* summary);

  Context c_;
  // The best ok median of each problem on the device, any template: the time
  // scale of the relative time limit.
  std::map<std::string, double> best_ms_by_problem_;
};

}  // namespace beast
