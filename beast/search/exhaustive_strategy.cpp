// The exhaustive strategy (exhaustive_strategy.hpp).
#include "beast/search/exhaustive_strategy.hpp"

#include "beast/search/space_walk.hpp"

namespace beast {

std::vector<Config> ExhaustiveStrategy::Propose(const ProposalRequest& request) {
  return FirstNotTaken(
      request.space, [](uint64_t i) { return i; }, request, WalkResumeStep(request));
}

}  // namespace beast
