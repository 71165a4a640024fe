// The two strategies that learn nothing from the trials: random (distinct
// points drawn uniformly, in a seeded permutation's order) and exhaustive
// (every point, in the space's order). Both skip what was measured or is
// pending, so a resumed run picks up where it stopped.
#pragma once

#include <functional>

#include "beast/search/strategy.hpp"

namespace beast {

class RandomStrategy : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed) : seed_(seed) {}
  std::vector<Config> Propose(const ProposalRequest& request) override;

 private:
  uint64_t seed_;
};

class ExhaustiveStrategy : public Strategy {
 public:
  std::vector<Config> Propose(const ProposalRequest& request) override;
  size_t PreferredBatch() const override { return 32; }
};

// The first `batch` points of the space in the order `position` -> index
// gives, that are not `taken` (their keys).
std::vector<Config> FirstNotTaken(const SearchSpace& space,
                                  const std::function<uint64_t(uint64_t)>& position,
                                  const ProposalRequest& request);

}  // namespace beast
