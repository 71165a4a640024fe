// The random strategy: distinct points drawn uniformly, in the order of a
// seeded permutation of the space's indices (never materialised). It learns
// nothing from the trials, so its batches can be large: a compile pool or
// NVRTC's threads get far ahead.
#pragma once

#include <cstdint>

#include "beast/search/strategy.hpp"

namespace beast {

class RandomStrategy : public Strategy {
 public:
  explicit RandomStrategy(uint64_t seed) : seed_(seed) {}
  std::vector<Config> Propose(const ProposalRequest& request) override;
  size_t PreferredBatch() const override { return 32; }

 private:
  uint64_t seed_;
};

}  // namespace beast
