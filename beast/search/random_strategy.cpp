// The random strategy (random_strategy.hpp).
#include "beast/search/random_strategy.hpp"

#include "beast/search/permutation.hpp"
#include "beast/search/space_walk.hpp"

namespace beast {

std::vector<Config> RandomStrategy::Propose(const ProposalRequest& request) {
  const RandomPermutation order(request.space.Size(), seed_);
  return FirstNotTaken(
      request.space, [&](uint64_t i) { return order(i); }, request, WalkResumeStep(request));
}

}  // namespace beast
