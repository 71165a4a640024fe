// How a run's time budget (--time-budget) is split over its (template,
// problem) pairs: in proportion to what each is worth to the job, weight
// (layers sharing the problem) times FLOPs, recomputed before each pair over
// the time then left, so what a pair that converged early (--patience) did
// not use goes to the pairs after it.
#pragma once

#include <cstdint>
#include <vector>

#include "beast/problem/problem.hpp"

namespace beast {

// The share of the time left that the first of `worth_left` (the worths of
// the pairs still to tune, in order, each > 0) gets: its worth over their
// sum, but never less than a quarter of an equal share, so that a small
// layer of a big network still gets its default config and a few more, and
// never so much that a pair after it would get less than that.
double ShareOfTimeLeft(const std::vector<double>& worth_left);

// A pair's worth: its problem's weight in the job times its FLOPs.
double PairWorth(const Problem& problem, int64_t weight);

}  // namespace beast
