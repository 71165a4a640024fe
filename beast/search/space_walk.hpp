// Walking a space in a given order and taking the first points nobody has
// measured or proposed yet: how the strategies that learn nothing (random,
// exhaustive) propose, and how the model fills a batch its design left short.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "beast/search/strategy.hpp"

namespace beast {

// The first request.batch points of the space, in the order `position` (walk
// step -> index) gives from step `start` on, that are not in the request's
// history or pending.
std::vector<Config> FirstNotTaken(const SearchSpace& space,
                                  const std::function<uint64_t(uint64_t)>& position,
                                  const ProposalRequest& request, uint64_t start = 0);

// Where a walk that chose every trial and pending config (but perhaps one
// placed first, the default) can resume: the steps before it are all taken.
uint64_t WalkResumeStep(const ProposalRequest& request);

}  // namespace beast
