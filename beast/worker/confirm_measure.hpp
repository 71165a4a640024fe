// Re-measures the top configs of a pair side by side, to confirm the winner.
// Each candidate is built (from the program cache, normally) and warmed up,
// then rounds run every candidate once in turn — A B C A B C ... — so that a
// drift of the machine (clocks, heat, another process) falls on all of them
// alike instead of on whichever was being measured when it happened. Rounds
// go on until every candidate's median is stable (the plan's confidence
// bound, after min_reps rounds), or max_reps rounds, or candidates x
// max_seconds of wall clock. The candidates were validated when they were
// measured, from the same source, so they are not validated again. Runs in
// the device worker.
#pragma once

#include <vector>

#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/instance_measure.hpp"
#include "harness/measure/timing.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast {

// One result per candidate, in order. A candidate that fails to build or to
// run stops there (its status and error_text say why, its samples so far are
// kept); the others go on. Only a broken device throws beast::Error.
std::vector<ConfirmResult> ConfirmInstances(harness::OpenClContext& context,
                                            const DeviceProblem& problem,
                                            const std::vector<ConfirmCandidate>& candidates,
                                            const harness::BenchmarkPlan& plan);

}  // namespace beast
