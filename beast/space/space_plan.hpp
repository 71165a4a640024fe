// A walk plan: how the engine binds the parameters of a space for one set of
// active constraints. It is a tree: each node binds one parameter, computes
// the derived values and checks the constraints whose names are then all
// bound, and below it the still unbound parameters fall into independent
// groups (no constraint, derived value or value set links two groups), each
// a child walked on its own, so the count under a node is a product of the
// counts of its children. The walk order (ForEach's) is the tree's preorder.
#pragma once

#include <cstdint>
#include <vector>

#include "beast/space/bound_space_impl.hpp"

namespace beast::space {

struct PlanNode {
  int level = 0;  // the parameter bound here (declared index)
  int slot = 0;
  bool is_static = true;      // values holds the value set; else evaluated per parent
  std::vector<Value> values;  // static: the value set after this plan's prefilters
  std::vector<int> derived;   // derived values computed once bound (Impl::derived indices)
  std::vector<int> checks;    // active constraints checked once bound, declared order
  std::vector<int> children;  // independent sub-walks, in walk order
  // Slots bound above this node that its subtree reads; the subtree's count
  // is a function of their values (the key of its memo table).
  std::vector<int> context;
  // The context misses a parameter bound above, so the same context recurs
  // while counting and the subtree's count is worth remembering.
  bool memo = false;
  std::vector<int> subtree_checks;  // constraints checked in the subtree
  // The subtree's count when no evaluation is needed (static value sets, no
  // check, no derived value), else -1.
  int64_t constant = -1;
  // Estimated evaluations to count the subtree once (the planner's model:
  // value-set size, checks and derived values, pass rates on random points).
  double cost = 0;
};

struct Plan {
  std::vector<char> active;  // per constraint
  bool raw = false;          // the Cartesian size: derived failures do not count
  std::vector<PlanNode> nodes;
  std::vector<int> roots;            // independent walks of the whole space
  std::vector<int> linear;           // nodes in walk order (preorder)
  std::vector<int> fixed_checks;     // active constraints that read no parameter
  std::vector<int> check_node;       // per constraint: the node checking it, or -1
  std::vector<int> prefilter_level;  // per constraint: the parameter it prefilters, or -1
  double cost = 0;                   // estimated evaluations of one count (the roots' sum)
};

// Builds the plan for the active constraints. With reorder, parameters are
// chosen by an estimate of the walk's cost; without, in declared order (and
// groups split off only where that keeps the walk order declared). Values a
// prefilter removes are added to (*prefilter_removed)[c] when given. A raw
// plan (the Cartesian size) keeps configs whose derived values fail; any
// other drops them, whether or not a constraint is active (a space whose
// only constraints are soft, under --ignore-soft, still drops them).
Plan MakePlan(const BoundSpace::Impl& m, const std::vector<char>& active, bool reorder,
              std::vector<uint64_t>* prefilter_removed = nullptr, bool raw = false);

// a * b, or Error(kBadInput) when the product does not fit 64 bits.
uint64_t CheckedProduct(uint64_t a, uint64_t b);

}  // namespace beast::space
