// The pruned search space of one template for one problem and device:
// slot layout, hoisted constraint checks and the walk that counts, lists and
// explains valid configs (bound_space.hpp).
#include "beast/bound_space.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "beast/error.hpp"
#include "bound_space_impl.hpp"

namespace beast {

void BoundSpace::Impl::Bind(const std::vector<std::pair<std::string, int64_t>>& fixed,
                            const BindOptions& options) {
  for (const auto& c : spec.constraints) {
    if (!(options.ignore_soft && c.kind == ConstraintKind::kSoft)) constraints.push_back(c);
  }
  for (const auto& c : options.extra) {
    if (!(options.ignore_soft && c.kind == ConstraintKind::kSoft)) constraints.push_back(c);
  }
  // Slots: problem and device names, then parameters, then derived values.
  for (const auto& [name, value] : fixed) {
    slot_names.push_back(name);
    base_slots.push_back(Value::Int(value));
  }
  first_param_slot = static_cast<int>(slot_names.size());
  std::map<std::string, int> param_level;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    param_level[spec.params[i].name] = static_cast<int>(i);
    slot_names.push_back(spec.params[i].name);
    base_slots.push_back(Value::Int(0));
  }
  std::map<std::string, int> derived_index;
  for (size_t i = 0; i < spec.derived.size(); ++i) {
    derived_index[spec.derived[i].name] = static_cast<int>(i);
    slot_names.push_back(spec.derived[i].name);
    base_slots.push_back(Value::Int(0));
  }
  auto slot_of = [this](const std::string& n) { return SlotOf(n); };
  // Topological order of derived values; the loader has ruled out cycles.
  std::vector<int> level_of(spec.derived.size(), -2);
  std::vector<int> order;
  std::function<int(int)> visit = [&](int d) -> int {
    if (level_of[d] != -2) return level_of[d];
    int lv = -1;
    for (const auto& n : spec.derived[d].expr.Names()) {
      if (param_level.count(n)) lv = std::max(lv, param_level[n]);
      else if (derived_index.count(n)) lv = std::max(lv, visit(derived_index[n]));
    }
    order.push_back(d);
    return level_of[d] = lv;
  };
  for (size_t d = 0; d < spec.derived.size(); ++d) visit(static_cast<int>(d));
  std::map<std::string, int> derived_level;
  for (int d : order) {
    derived.push_back({SlotOf(spec.derived[d].name), spec.derived[d].expr.Compile(slot_of), level_of[d]});
    derived_level[spec.derived[d].name] = level_of[d];
  }
  auto level_of_names = [&](const Expr& e, std::set<int>* params_used) {
    int lv = -1;
    for (const auto& n : e.Names()) {
      if (param_level.count(n)) {
        lv = std::max(lv, param_level[n]);
        if (params_used) params_used->insert(param_level[n]);
      } else if (derived_level.count(n)) {
        lv = std::max(lv, derived_level[n]);
        if (params_used) params_used->insert(-100);  // derived: not a single-parameter check
      }
    }
    return lv;
  };
  levels.resize(spec.params.size());
  for (size_t i = 0; i < spec.params.size(); ++i) {
    Level& level = levels[i];
    level.param = &spec.params[i];
    level.slot = first_param_slot + static_cast<int>(i);
    for (const auto& e : spec.params[i].exprs) level.exprs.push_back(e.Compile(slot_of));
    int lv = -1;
    for (const auto& e : spec.params[i].exprs) lv = std::max(lv, level_of_names(e, nullptr));
    level.is_static = lv == -1;
  }
  for (size_t d = 0; d < derived.size(); ++d) {
    if (derived[d].level >= 0) levels[derived[d].level].derived.push_back(static_cast<int>(d));
  }
  // Static value sets are evaluated once, with the problem and device bound
  // (and the derived values that need no parameter).
  std::vector<Value> slots = base_slots;
  for (const auto& d : derived) {
    if (d.level == -1) d.expr.Eval(slots.data(), &slots[d.slot]);
  }
  for (auto& level : levels) {
    if (level.is_static) ValueSet(level, slots.data(), &level.values);
  }
  for (size_t c = 0; c < constraints.size(); ++c) {
    if (constraints[c].stage == ConstraintStage::kAfterCompile) {
      compiled.emplace_back();
      constraint_level.push_back(-2);
      continue;
    }
    compiled.push_back(constraints[c].expr.Compile([&](const std::string& n) {
      int slot = SlotOf(n);
      if (slot < 0) FailAt(constraints[c].where, "constraint \"" + constraints[c].expr.text() + "\" names unknown parameter \"" + n + "\"");
      return slot;
    }));
    std::set<int> used;
    int lv = level_of_names(constraints[c].expr, &used);
    constraint_level.push_back(lv);
    if (lv == -1) {
      fixed_checks.push_back(static_cast<int>(c));
    } else if (used.size() == 1 && *used.begin() == lv && levels[lv].is_static) {
      levels[lv].prefilters.push_back(static_cast<int>(c));
    } else {
      levels[lv].checks.push_back(static_cast<int>(c));
    }
  }
  for (int k = 0; k < 2; ++k) {
    for (int d = 0; d < 3; ++d) {
      launch[k][d].push_back((k == 0 ? spec.launch_global[d] : spec.launch_local[d]).Compile(slot_of));
    }
  }
}

BoundSpace::BoundSpace(const SpaceSpec& spec, const Problem& problem, const DeviceInfo& device,
                       BindOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->spec = spec;
  if (spec.op != problem.op()) {
    throw Error(ErrorCode::kBadArgument, "template " + spec.name + " is a " +
                                             (spec.op == OpKind::kGemm ? "gemm" : "conv2d") +
                                             " template, the problem is " + problem.OpName());
  }
  if (spec.op == OpKind::kConv2d &&
      std::find(spec.layouts.begin(), spec.layouts.end(), problem.conv().layout) == spec.layouts.end()) {
    throw Error(ErrorCode::kBadArgument, "template " + spec.name + " does not support layout " +
                                             LayoutName(problem.conv().layout));
  }
  for (const auto& [name, value] : problem.Variables()) impl_->problem_vars.emplace_back(name, value);
  std::vector<std::pair<std::string, int64_t>> fixed = impl_->problem_vars;
  for (const auto& [name, value] : device.Variables()) fixed.emplace_back(name, value);
  impl_->Bind(fixed, options);
}

BoundSpace::BoundSpace(const SpaceSpec& spec, const std::vector<std::pair<std::string, int64_t>>& fixed,
                       BindOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->spec = spec;
  impl_->Bind(fixed, options);
}

BoundSpace::~BoundSpace() = default;
BoundSpace::BoundSpace(BoundSpace&&) noexcept = default;
BoundSpace& BoundSpace::operator=(BoundSpace&&) noexcept = default;

const SpaceSpec& BoundSpace::spec() const { return impl_->spec; }
const std::vector<ConstraintSpec>& BoundSpace::constraints() const { return impl_->constraints; }

uint64_t BoundSpace::RawSize() const {
  return impl_->CountWith(std::vector<char>(impl_->constraints.size(), 0));
}

uint64_t BoundSpace::Count() const { return impl_->CountWith(impl_->AllActive()); }

void BoundSpace::ForEach(const std::function<bool(const Config&)>& visit) const {
  Impl::WalkStats stats;
  auto adapter = [&](const Value* slots) { return visit(impl_->MakeConfig(slots)); };
  impl_->Run<false>(impl_->AllActive(), stats, adapter);
}

std::vector<Config> BoundSpace::Enumerate(size_t limit) const {
  std::vector<Config> out;
  if (limit == 0) return out;
  ForEach([&](const Config& c) {
    out.push_back(c);
    return out.size() < limit;
  });
  return out;
}

SpaceReport BoundSpace::Explain() const {
  const Impl& m = *impl_;
  SpaceReport report;
  size_t n = m.constraints.size();
  std::vector<uint64_t> removed(n, 0), invalid(n, 0);
  Impl::WalkStats stats;
  stats.removed = &removed;
  stats.invalid_eval = &invalid;
  auto none = [](const Value*) { return true; };
  std::vector<char> all = m.AllActive();
  report.valid = m.Run<true>(all, stats, none);
  report.derived_errors = stats.derived_errors;
  report.raw = RawSize();
  std::vector<char> prefix(n, 0);
  for (size_t c = 0; c < n; ++c) {
    ConstraintReport r;
    r.spec = &m.constraints[c];
    int lv = m.constraint_level[c];
    r.checked_at = lv == -2 ? "after compile" : lv == -1 ? "problem/device" : m.levels[lv].param->name;
    if (lv >= 0) {
      const auto& pre = m.levels[lv].prefilters;
      r.prefilter = std::find(pre.begin(), pre.end(), static_cast<int>(c)) != pre.end();
    }
    r.removed = removed[c];
    r.invalid_eval = invalid[c];
    prefix[c] = all[c];
    r.remaining = m.CountWith(prefix);
    if (r.remaining == 0 && report.emptied_by < 0) report.emptied_by = static_cast<int>(c);
    report.constraints.push_back(r);
  }
  return report;
}

}  // namespace beast
