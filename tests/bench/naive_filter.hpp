// The baseline the space engine is measured against: a naive Cartesian
// filter that walks every raw point of a space in declared order and, at the
// leaf, computes every derived value and evaluates the constraints in
// declared order until one fails (Python's all()), with the same compiled
// expressions (CompiledExpr) the engine uses. For spaces too large to walk,
// it walks an evenly spread share of the combinations of the outer
// parameters, and the time is extrapolated from the share of raw points.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "beast/expr/expr.hpp"
#include "beast/space/space_spec.hpp"

namespace beast::bench {

class NaiveFilter {
 public:
  NaiveFilter(const SpaceSpec& spec, const std::vector<std::pair<std::string, int64_t>>& fixed);

  struct Result {
    uint64_t walked = 0;  // raw points visited
    uint64_t valid = 0;   // of those, passing every constraint
  };
  // Walks the raw points; with stride > 1, only every stride-th combination
  // of the first `depth` parameters (their value sets must be static).
  Result Run(size_t depth = 0, uint64_t stride = 1) const;

  // The smallest depth, short of the last parameter, whose combinations of
  // static value sets number at least `combos`; 0 when there is none.
  size_t DepthFor(uint64_t combos) const;
  // Product of the value-set sizes of the first depth parameters.
  uint64_t Combinations(size_t depth) const;
  std::string ParamNames(size_t depth) const;

 private:
  struct Param {
    ParamSpec::Form form;
    std::vector<CompiledExpr> exprs;
    bool is_static = true;
    std::vector<Value> values;  // static value set
  };
  void ValueSet(const Param& p, const Value* slots, std::vector<Value>* out) const;

  const SpaceSpec& spec_;
  std::vector<Value> base_;
  size_t first_param_ = 0;
  std::vector<Param> params_;
  std::vector<std::pair<int, CompiledExpr>> derived_;  // slot, expression; dependency order
  std::vector<CompiledExpr> constraints_;              // before-compile ones, declared order
};

}  // namespace beast::bench
