// SearchSpace: the points a search strategy may propose — a beast template's
// bound space, or a recorded space replayed offline (every config of a Kernel
// Tuner cache) — as an indexed set: its size, the point at an index, the
// index of a point, and the numbers a cost model may read beside a point's
// parameters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "beast/core/config.hpp"

namespace beast {

class SearchSpace {
 public:
  virtual ~SearchSpace() = default;
  // Parameter names, in the order configs carry them.
  virtual const std::vector<std::string>& names() const = 0;
  virtual uint64_t Size() const = 0;
  // The point at `index` (< Size()).
  virtual Config At(uint64_t index) const = 0;
  // The index of `config`; nullopt when it is not a point of the space.
  virtual std::optional<uint64_t> IndexOf(const Config& config) const = 0;
  // Values derived from the point that describe it to a cost model (a
  // template's derived values: work per thread, tile bytes, threads...),
  // appended to `out` in a fixed order for every point; none by default.
  virtual void Derived(const Config& /*config*/, std::vector<double>* /*out*/) const {}
};

}  // namespace beast
