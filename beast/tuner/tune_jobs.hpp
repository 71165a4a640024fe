// The jobs of a tuning run: every pair's configs that the database does not
// hold yet for the device, in the order the run measures them, and what
// supplying each one's program cost the run.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "beast/compile/program_supply.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/worker/instance_measure.hpp"
#include "results_db/store.hpp"

namespace beast {

// A pair's jobs are [span.first, span.first + span.second) of `jobs`.
struct JobPlan {
  std::vector<ProgramJob> jobs;
  std::map<const PlannedPair*, std::pair<size_t, size_t>> spans;
};
JobPlan PlanJobs(results_db::Store& store, int64_t device_id,
                 const std::vector<PlannedPair>& pairs);

// Adds what `supplied` and its outcome cost to the summary: compile time
// spent now (by the pool or the device worker), programs compiled now or
// found in the cache.
void AccountSupply(const ProgramSupply::Supplied& supplied, const Outcome& outcome,
                   TuneSummary* summary);

}  // namespace beast
