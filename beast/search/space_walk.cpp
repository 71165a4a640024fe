// Walking a space past what is taken (space_walk.hpp).
#include "beast/search/space_walk.hpp"

#include <string>
#include <unordered_set>

namespace beast {

std::vector<Config> FirstNotTaken(const SearchSpace& space,
                                  const std::function<uint64_t(uint64_t)>& position,
                                  const ProposalRequest& request, uint64_t start) {
  std::unordered_set<std::string> taken;
  for (const Trial& t : request.history) taken.insert(t.config.Key());
  for (const Config& c : request.pending) taken.insert(c.Key());
  std::vector<Config> out;
  for (uint64_t i = start; i < space.Size() && out.size() < request.batch; ++i) {
    Config config = space.At(position(i));
    if (taken.insert(config.Key()).second) out.push_back(std::move(config));
  }
  return out;
}

// n configs taken, at most one of them not the walk's: the walk took n - 1
// or n steps, so step n - 1 is where nothing before is free.
uint64_t WalkResumeStep(const ProposalRequest& request) {
  const uint64_t taken = request.history.size() + request.pending.size();
  return taken == 0 ? 0 : taken - 1;
}

}  // namespace beast
