// A pair's winner as its summary shows it: the best ok config of its
// template version on the device (the confirmed one when a confirmation
// stands), its time, speed-up over the default, and the config the lowest
// median alone would pick when a confirmation picked another. Read from the
// database, so a run on one device and a run under mpirun say the same.
#pragma once

#include <cstdint>
#include <optional>

#include "beast/tuner/tune_loop.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tuner.hpp"
#include "results_db/store.hpp"

namespace beast {

// The pair's best ok config in the database, of this template version.
std::optional<results_db::ResultRow> BestOfPair(results_db::Store& store, int64_t device_id,
                                                const PlannedPair& pair);

// The best ok median of the problem on the device, any template.
std::optional<double> BestOfProblem(results_db::Store& store, int64_t device_id,
                                    const Problem& problem);

// Fills the winner fields of `summary` (unchanged when the pair has no ok config).
void SummarizePairBest(results_db::Store& store, int64_t device_id, const PlannedPair& pair,
                       const PairIds& ids, PairSummary* summary);

}  // namespace beast
