// What supplying a config's program cost a tuning run: compile time spent
// now (by the compile pool or the device worker), programs compiled now or
// found in the program cache.
#pragma once

#include "beast/compile/program_supply.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/instance_measure.hpp"

namespace beast {

// Adds what `supplied` and its outcome cost to the summary: compile time
// spent now (by the pool or the device worker), programs compiled now or
// found in the cache.
void AccountSupply(const ProgramSupply::Supplied& supplied, const Outcome& outcome,
                   TuneSummary* summary);

}  // namespace beast
