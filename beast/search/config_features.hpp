// What a cost model reads of a config: its parameter values, the product of
// every pair of them (threads = block_x * block_y, work per thread, tile
// extents: what decides speed is often such a product), each integer
// parameter's power-of-two alignment (a block of 128 and one of 144 differ
// more than their values say), and the values the space derives from the
// config (SearchSpace::Derived). Trees split on thresholds, so a monotone
// transform of one value (a log) would add nothing; products and alignments
// are what they could not find alone.
#pragma once

#include <cstddef>
#include <vector>

#include "beast/search/search_space.hpp"

namespace beast {

class ConfigFeatures {
 public:
  explicit ConfigFeatures(const SearchSpace& space);
  // The features of `config`, appended to *row (width() values).
  void Append(const Config& config, std::vector<float>* row) const;
  size_t width() const { return width_; }

 private:
  const SearchSpace& space_;
  size_t params_ = 0;
  size_t width_ = 0;
};

}  // namespace beast
