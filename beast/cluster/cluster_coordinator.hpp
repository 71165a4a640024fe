// The coordinator of a tuning run under mpirun (rank 0): it checks the
// input, waits for every device rank's hello (its device, host, peak and
// plan), groups the ranks by device, opens the database — the only process
// that does — and records the devices; then it deals configs out and records
// each outcome as it lands (cluster_schedule.hpp). When every trajectory has
// ended it has the first rank of each group measure the vendor baselines and
// confirm each pair's winner side by side (the same steps as a run on one
// device, through DeviceCalls), tells every rank it is done, adds up what
// each spent, and gives one summary per device group. A signal stops every
// rank (mpirun passes it on): outcomes already in flight are still recorded
// as they land, the run is marked interrupted, and the same mpirun command
// resumes it.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "beast/cluster/rank_link.hpp"
#include "beast/tuner/tuner.hpp"

namespace beast {

struct ClusterRun {
  // One per group of ranks with one device, in the order of their first rank.
  std::vector<TuneSummary> groups;
  bool interrupted = false;
  // A rank that failed once its work was done (while the run ended): every
  // outcome is recorded, but that rank's exit is not 0, so neither is the
  // job's; this is its line.
  std::string late_failure;
};

// Throws Error for bad input (before the database is touched) or a rank
// that cannot serve (its line names the rank and host); every rank is told
// to stop first.
ClusterRun CoordinateTune(RankLink& link, const TuneOptions& options,
                          const std::atomic<bool>& stop);

// Rank 0 could not start the run (its own input was bad): tells every device
// rank the run is over and waits a while for their goodbyes, so none is left
// waiting for work that will not come.
void EndUnstartedRun(RankLink& link);

}  // namespace beast
