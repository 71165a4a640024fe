// A seeded random permutation of [0, size) that is computed, never stored:
// the i-th element of a uniformly shuffled space of billions of points, in
// O(1) memory. A strategy walks a space in this order to draw distinct
// random points, and the same seed gives the same order everywhere.
#pragma once

#include <cstdint>

namespace beast {

class RandomPermutation {
 public:
  RandomPermutation(uint64_t size, uint64_t seed);
  uint64_t size() const { return size_; }
  // The element at position i (< size()); distinct positions give distinct
  // elements.
  uint64_t operator()(uint64_t i) const;

 private:
  uint64_t Round(uint64_t half, int round) const;
  uint64_t size_;
  uint64_t seed_;
  int half_bits_;  // the Feistel network works on 2 * half_bits_ bits
};

// SplitMix64: a well-mixed 64-bit hash of x, the generator beast's seeded
// choices are drawn from.
uint64_t SplitMix64(uint64_t x);

}  // namespace beast
