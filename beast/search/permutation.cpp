// A Feistel network with cycle walking (permutation.hpp): the network is a
// bijection of [0, 4^k) for the smallest 4^k >= size; an element that falls
// outside [0, size) is fed through again until it lands inside, which keeps
// the map a bijection of [0, size) and takes under 4 rounds on average.
#include "beast/search/permutation.hpp"

#include "beast/core/error.hpp"

namespace beast {
namespace {

constexpr int kRounds = 4;

}  // namespace

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

RandomPermutation::RandomPermutation(uint64_t size, uint64_t seed)
    : size_(size), seed_(SplitMix64(seed)), half_bits_(1) {
  while (half_bits_ < 32 && (uint64_t{1} << (2 * half_bits_)) < size) ++half_bits_;
}

uint64_t RandomPermutation::Round(uint64_t half, int round) const {
  const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
  return SplitMix64(seed_ ^ (half * 0x632be59bd9b4e019ULL) ^ static_cast<uint64_t>(round)) & mask;
}

uint64_t RandomPermutation::operator()(uint64_t i) const {
  BEAST_CHECK(i < size_);
  const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
  uint64_t x = i;
  do {
    uint64_t left = x >> half_bits_, right = x & mask;
    for (int r = 0; r < kRounds; ++r) {
      const uint64_t next = left ^ Round(right, r);
      left = right;
      right = next;
    }
    x = (left << half_bits_) | right;
  } while (x >= size_);
  return x;
}

}  // namespace beast
