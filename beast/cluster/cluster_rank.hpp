// A device rank of a tuning run under mpirun (every rank but 0): it opens its
// one device in a device worker and starts its compile pool, measures the
// device's peak, says hello to the coordinator with its device and plan, and
// then serves what the coordinator sends — configs to measure (each built
// ahead by the pool as soon as it arrives, measured in arrival order),
// vendor baselines and confirmations — until the coordinator says it is
// done, or a signal stops it. It never opens the database. A kernel that
// crashes or hangs costs the device worker only, as in a run on one device.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "beast/cluster/rank_link.hpp"
#include "beast/problem/device.hpp"
#include "beast/tuner/tuner.hpp"

namespace beast {

// Serves one device for rank 0: the `local_index`-th device rank of its node
// takes the `local_index`-th of `given` (round robin; cuda:local and
// opencl:local made the node's device of that place), or with none given the
// node's CUDA GPU of that place, else opencl:0. Returns the exit code: 0 when the coordinator
// said done, 130 when stopped by a signal, 1 when the rank could not serve
// (it told the coordinator why, in one line).
int ServeDevice(RankLink& link, const TuneOptions& options,
                const std::vector<DeviceSelector>& given, int local_index, const std::string& host,
                const std::atomic<bool>& stop);

// A device rank that cannot start the run (its command line, or a file it
// names, read wrong on its node): tells the coordinator `why` as the run's
// error, naming this rank and `host`, waits to be told the run is over, and
// says goodbye, so that no rank is left waiting for another.
void RefuseToServe(RankLink& link, const std::string& host, const std::string& why,
                   const std::atomic<bool>& stop);

}  // namespace beast
