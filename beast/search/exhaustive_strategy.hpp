// The exhaustive strategy: every point of the space, in the space's own
// order (the order a bound space walks it).
#pragma once

#include "beast/search/strategy.hpp"

namespace beast {

class ExhaustiveStrategy : public Strategy {
 public:
  std::vector<Config> Propose(const ProposalRequest& request) override;
  size_t PreferredBatch() const override { return 32; }
};

}  // namespace beast
