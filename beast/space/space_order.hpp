// The shape of a walk plan: the order in which parameters are bound and the
// independent groups below each one (space_plan.hpp describes the plan).
#pragma once

#include <vector>

#include "beast/space/space_plan.hpp"

namespace beast::space {

// Fills plan->nodes (parameter, slot, derived values, checks, children),
// plan->roots and plan->check_node, given plan->active and
// plan->prefilter_level, and size, the estimated value-set size of each
// parameter. With reorder, each group starts with the parameter that
// minimizes the estimated cost of walking it; without, groups follow the
// declared order and split only where that keeps the walk order declared.
void BuildTree(const BoundSpace::Impl& m, Plan* plan, bool reorder,
               const std::vector<double>& size);

}  // namespace beast::space
