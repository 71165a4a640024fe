// Builds walk plans (space_plan.hpp): prefilters, the tree's shape (from
// space_order.cpp), and what each node of the tree reads from above, whether
// its counts are worth remembering and what counting it is estimated to cost.
#include "beast/space/space_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "beast/space/space_order.hpp"

namespace beast::space {
namespace {

using Impl = BoundSpace::Impl;

// What each node's subtree reads from above, whether its count is worth
// remembering, and whether it needs evaluating at all. Post-order.
void Annotate(const Impl& m, Plan* plan, int id, std::vector<int>* ancestors,
              std::vector<int>* reads, std::vector<int>* writes) {
  PlanNode& node = plan->nodes[id];
  std::vector<int> r, w;
  auto add_reads = [&](const CompiledExpr& e) {
    r.insert(r.end(), e.Slots().begin(), e.Slots().end());
  };
  if (!node.is_static) {
    for (const auto& e : m.levels[node.level].exprs) add_reads(e);
  }
  w.push_back(node.slot);
  for (int d : node.derived) {
    add_reads(m.derived[d].expr);
    w.push_back(m.derived[d].slot);
  }
  for (int c : node.checks) add_reads(m.compiled[c]);
  node.subtree_checks = node.checks;
  double size =
      node.is_static ? static_cast<double>(node.values.size()) : m.levels[node.level].mean_size;
  double pass = 1, below = 0;
  for (int c : node.checks) pass *= m.pass_rate[c];
  bool constant = node.is_static && node.checks.empty() && node.derived.empty();
  uint64_t product = node.values.size();
  ancestors->push_back(node.level);
  for (int child : node.children) {
    std::vector<int> cr, cw;
    Annotate(m, plan, child, ancestors, &cr, &cw);
    r.insert(r.end(), cr.begin(), cr.end());
    w.insert(w.end(), cw.begin(), cw.end());
    const PlanNode& c = plan->nodes[child];
    node.subtree_checks.insert(node.subtree_checks.end(), c.subtree_checks.begin(),
                               c.subtree_checks.end());
    if (c.constant < 0 ||
        __builtin_mul_overflow(product, static_cast<uint64_t>(c.constant), &product)) {
      constant = false;
    }
    below += c.cost;
  }
  node.cost = size * static_cast<double>(1 + node.checks.size() + node.derived.size()) +
              size * pass * below;
  ancestors->pop_back();
  std::sort(node.subtree_checks.begin(), node.subtree_checks.end());
  std::sort(w.begin(), w.end());
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  if (constant && product <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    node.constant = static_cast<int64_t>(product);
    node.cost = 1;
  }
  // Context: slots read but written neither here nor by the problem/device.
  std::vector<int> context;
  std::vector<char> depends(m.levels.size(), 0);
  for (int s : r) {
    if (std::binary_search(w.begin(), w.end(), s) || s < m.first_param_slot) continue;
    if (s >= m.first_derived_slot) {
      const auto& d = *std::find_if(m.derived.begin(), m.derived.end(),
                                    [&](const Impl::Derived& x) { return x.slot == s; });
      if (d.params.empty()) continue;  // computed once, before the walk
      for (int p : d.params) depends[p] = 1;
    } else {
      depends[s - m.first_param_slot] = 1;
    }
    context.push_back(s);
  }
  node.context = context;
  bool misses_one =
      std::any_of(ancestors->begin(), ancestors->end(), [&](int a) { return !depends[a]; });
  node.memo = misses_one && node.constant < 0 && context.size() <= 32;
  *reads = std::move(r);
  *writes = std::move(w);
}

void Linearize(Plan* plan, int id) {
  plan->linear.push_back(id);
  for (int child : plan->nodes[id].children) Linearize(plan, child);
}

}  // namespace

uint64_t CheckedProduct(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw Error(ErrorCode::kBadInput,
                "the space has more than 2^64 points, more than beast can count");
  }
  return r;
}

Plan MakePlan(const Impl& m, const std::vector<char>& active, bool reorder,
              std::vector<uint64_t>* prefilter_removed, bool raw) {
  Plan plan;
  plan.active = active;
  plan.raw = raw;
  size_t n = m.levels.size();
  plan.check_node.assign(m.constraints.size(), -1);
  plan.prefilter_level.assign(m.constraints.size(), -1);
  for (size_t c = 0; c < m.constraints.size(); ++c) {
    if (!active[c]) continue;
    const auto& params = m.constraint_params[c];
    if (params.empty()) {
      plan.fixed_checks.push_back(static_cast<int>(c));
    } else if (params.size() == 1 && !m.constraint_reads_derived[c] &&
               m.levels[params[0]].is_static) {
      plan.prefilter_level[c] = params[0];
    }
  }
  // Static value sets after the prefilters (each value is charged to the
  // first prefilter, in declared order, that rejects it).
  std::vector<std::vector<Value>> values(n);
  std::vector<double> size(n);
  std::vector<Value> slots = m.base_slots;
  for (size_t l = 0; l < n; ++l) {
    const auto& level = m.levels[l];
    if (!level.is_static) {
      size[l] = level.mean_size;
      continue;
    }
    for (const Value& v : level.values) {
      slots[level.slot] = v;
      bool keep = true;
      for (size_t c = 0; c < m.constraints.size() && keep; ++c) {
        if (plan.prefilter_level[c] != static_cast<int>(l)) continue;
        Value r;
        if (m.compiled[c].Eval(slots.data(), &r) != EvalStatus::kOk || !r.Truthy()) {
          if (prefilter_removed) ++(*prefilter_removed)[c];
          keep = false;
        }
      }
      if (keep) values[l].push_back(v);
    }
    size[l] = static_cast<double>(values[l].size());
  }
  BuildTree(m, &plan, reorder, size);
  for (auto& node : plan.nodes) {
    if (node.is_static) node.values = values[node.level];
  }
  std::vector<int> ancestors;
  for (int root : plan.roots) {
    std::vector<int> reads, writes;
    Annotate(m, &plan, root, &ancestors, &reads, &writes);
    Linearize(&plan, root);
    plan.cost += plan.nodes[root].cost;
  }
  return plan;
}

}  // namespace beast::space
