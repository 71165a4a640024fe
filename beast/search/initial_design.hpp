// The initial design of a model-guided search: `count` points of the space
// chosen from a random pool so that the values of every parameter appear as
// early as they can — each point the one that adds the most (parameter,
// value) pairs not seen yet — so the first model has seen every value before
// it must judge one. A function of the space and the seed.
#pragma once

#include <cstdint>
#include <vector>

#include "beast/search/search_space.hpp"

namespace beast {

std::vector<Config> InitialDesign(const SearchSpace& space, uint64_t seed, size_t count);

}  // namespace beast
