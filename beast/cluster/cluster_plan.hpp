// The plan of a run under mpirun as the processes compare it: each device
// rank plans the run for its own device, the coordinator plans it again for
// every group of ranks, and the two must be the same pairs in the same order
// (configs travel as a pair's index and a config key). A rank started from
// another installation (other templates, another beast) would differ; the
// run then stops before measuring, in one line.
#pragma once

#include <string>
#include <vector>

#include "beast/tuner/tune_plan.hpp"

namespace beast {

// One line per pair: template, its hash, problem, budget, strategy.
std::string PlanText(const std::vector<PlannedPair>& pairs);

}  // namespace beast
