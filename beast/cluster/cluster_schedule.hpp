// ClusterSchedule: the coordinator's bookkeeping in a tuning run under
// mpirun. Device ranks are grouped by device (same backend, name and driver:
// one device as far as results go); each group follows its pairs in order,
// one trajectory per pair (pair_trajectory.hpp, read from and written to the
// one database), and deals the configs the trajectory has proposed — the
// next one and those beyond it — to whichever rank of the group has a free
// slot, so a fast rank takes more. Every outcome that lands is recorded in
// its own transaction at once and fed to the trajectory, which takes
// outcomes in trajectory order: so the configs measured are the ones a run
// on one device would measure (with the random strategy: exactly those), a
// config is never dealt twice, and a killed run resumes from the database.
// A pair whose trajectory has ended lets the next one start while its last
// configs are still being measured. No MPI here: the coordinator passes
// messages (cluster_coordinator.hpp), and a benchmark drives this directly.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "beast/cluster/cluster_protocol.hpp"
#include "beast/tuner/pair_trajectory.hpp"
#include "beast/tuner/progress.hpp"
#include "beast/tuner/tune_loop.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tuner.hpp"
#include "results_db/store.hpp"

namespace beast {

class ClusterSchedule {
 public:
  using Clock = std::chrono::steady_clock;
  struct Rank {
    int rank = 0;
    std::string host;
    int64_t slots = 1;
    size_t group = 0;
    int64_t in_flight = 0;
    uint64_t measured = 0;
  };
  // One device, the ranks that serve it, and its pairs.
  struct Group {
    DeviceInfo device;
    int64_t device_id = 0;
    std::vector<PlannedPair> pairs;
    std::vector<size_t> ranks;  // indexes into ranks()
    // The pairs' rows, set when a pair starts; and each started pair's summary.
    std::vector<std::optional<PairIds>> ids;
    std::vector<std::optional<PairSummary>> pair_summaries;
    TuneSummary summary;  // the group's, without its pairs until Summaries()
  };

  // `deadline`: the end of measuring (Clock::time_point::max(): none), split
  // over each group's pairs by their worth as they start.
  ClusterSchedule(const TuneOptions& options, results_db::Store& store, int64_t run_id,
                  Clock::time_point deadline);
  ~ClusterSchedule();

  // A group of the run, its device recorded as `device_id`; its summary comes
  // with the device's peak and the pairs left out already in it.
  size_t AddGroup(const DeviceInfo& device, int64_t device_id, std::vector<PlannedPair> pairs,
                  TuneSummary summary);
  void AddRank(int rank, std::string host, int64_t slots, size_t group);

  // The configs to send now, each to a rank with a free slot: nothing once
  // `stop` is set.
  std::vector<std::pair<int, MeasureTask>> Deal(const std::atomic<bool>& stop);
  // The outcome `rank` sent for a config it was dealt. Throws Error(kInternal)
  // for one it was not dealt.
  void Land(int rank, const MeasuredTask& task);

  // Ends every group's progress line, and the pairs still open (a stopped
  // run): their summaries get their time and skipped configs.
  void Finish();
  // Every group's trajectories have ended and nothing is in flight.
  bool Finished() const;
  int64_t InFlight() const;
  std::vector<Group>& groups() { return groups_; }
  const std::vector<Rank>& ranks() const { return ranks_; }

 private:
  struct Active;
  struct GroupState;
  std::optional<MeasureTask> NextTask(size_t group, const std::atomic<bool>& stop);
  bool StartPair(size_t group, const std::atomic<bool>& stop);
  void ClosePair(size_t group, Active& active);
  size_t RankIndex(int rank) const;

  const TuneOptions& options_;
  results_db::Store& store_;
  int64_t run_id_;
  Clock::time_point deadline_;
  std::vector<Group> groups_;
  std::vector<std::unique_ptr<GroupState>> states_;  // one per group
  std::vector<Rank> ranks_;
};

}  // namespace beast
