// Random and exhaustive strategies (walk_strategies.hpp).
#include "beast/search/walk_strategies.hpp"

#include <unordered_set>

#include "beast/search/permutation.hpp"

namespace beast {

std::vector<Config> FirstNotTaken(const SearchSpace& space,
                                  const std::function<uint64_t(uint64_t)>& position,
                                  const ProposalRequest& request) {
  std::unordered_set<std::string> taken;
  for (const Trial& t : request.history) taken.insert(t.config.Key());
  for (const Config& c : request.pending) taken.insert(c.Key());
  std::vector<Config> out;
  // Taken points come first in the walk only as often as they were measured
  // (the walk that chose them is this one), so this stays linear in the trials.
  for (uint64_t i = 0; i < space.Size() && out.size() < request.batch; ++i) {
    Config config = space.At(position(i));
    if (taken.insert(config.Key()).second) out.push_back(std::move(config));
  }
  return out;
}

std::vector<Config> RandomStrategy::Propose(const ProposalRequest& request) {
  const RandomPermutation order(request.space.Size(), seed_);
  return FirstNotTaken(
      request.space, [&](uint64_t i) { return order(i); }, request);
}

std::vector<Config> ExhaustiveStrategy::Propose(const ProposalRequest& request) {
  return FirstNotTaken(
      request.space, [](uint64_t i) { return i; }, request);
}

}  // namespace beast
