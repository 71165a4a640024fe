// The private representation of BoundSpace: slot layout, levels (one per
// parameter) with their hoisted checks, and the depth-first walk shared by
// counting, listing and explaining.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "beast/bound_space.hpp"
#include "beast/error.hpp"

namespace beast {

struct BoundSpace::Impl {
  struct Derived {
    int slot;
    CompiledExpr expr;
    int level;  // the level after which it is computed (-1: before any)
  };
  struct Level {
    int slot = 0;
    const ParamSpec* param = nullptr;
    bool is_static = false;
    std::vector<Value> values;            // static value set, before prefilters
    std::vector<CompiledExpr> exprs;      // dynamic value set
    std::vector<int> derived;             // derived to compute once bound
    std::vector<int> checks;              // constraints checked here, declared order
    std::vector<int> prefilters;          // single-parameter constraints applied to `values`
  };
  // One walk's view: which constraints are active, the value lists they leave.
  struct WalkPlan {
    std::vector<char> active;
    std::vector<std::vector<Value>> static_values;  // per level, after active prefilters
    size_t free_from = 0;                           // levels from here on just multiply
    bool raw = false;                               // no constraint active: raw size
  };

  SpaceSpec spec;
  std::vector<std::pair<std::string, int64_t>> problem_vars;  // handed to templates
  std::vector<ConstraintSpec> constraints;
  std::vector<CompiledExpr> compiled;   // per constraint (unset for after-compile)
  std::vector<int> constraint_level;    // -1 problem/device only, -2 after compile
  std::vector<std::string> slot_names;
  std::vector<Value> base_slots;
  int first_param_slot = 0;
  std::vector<Derived> derived;         // topological order
  std::vector<Level> levels;            // one per parameter, declared order
  std::vector<int> fixed_checks;
  std::vector<CompiledExpr> launch[2][3];

  int SlotOf(const std::string& name) const {
    for (size_t i = 0; i < slot_names.size(); ++i) {
      if (slot_names[i] == name) return static_cast<int>(i);
    }
    return -1;
  }

  [[noreturn]] void FailAt(const SourceLocation& at, const std::string& why) const {
    throw Error(ErrorCode::kBadInput, at.ToString() + ": " + why);
  }

  static bool AsInt(const Value& v, int64_t* out) {
    if (v.kind == Value::Kind::kFloat) {
      if (v.f != static_cast<double>(static_cast<int64_t>(v.f))) return false;
      *out = static_cast<int64_t>(v.f);
      return true;
    }
    *out = v.i;
    return true;
  }

  // Evaluates a level's value set with the slots bound so far. Values whose
  // expression fails (division by zero) are left out.
  void ValueSet(const Level& level, const Value* slots, std::vector<Value>* out) const {
    out->clear();
    const ParamSpec& p = *level.param;
    std::vector<Value> args;
    for (const auto& e : level.exprs) {
      Value v;
      if (e.Eval(slots, &v) != EvalStatus::kOk) {
        if (p.form == ParamSpec::Form::kValues) continue;
        return;  // a range without bounds is empty
      }
      if (p.form == ParamSpec::Form::kValues) out->push_back(v);
      else args.push_back(v);
    }
    if (p.form == ParamSpec::Form::kValues) return;
    int64_t a[3] = {0, 0, 1};
    for (size_t i = 0; i < args.size(); ++i) {
      if (!AsInt(args[i], &a[i])) {
        FailAt(p.where, "the bounds of " + p.name + " must be integers, got " + args[i].ToString());
      }
    }
    if (p.form == ParamSpec::Form::kRange) {
      if (a[2] == 0) FailAt(p.where, "the range step of " + p.name + " is zero");
      const int64_t kMaxValues = 1 << 24;
      for (int64_t v = a[0]; a[2] > 0 ? v < a[1] : v > a[1]; v += a[2]) {
        if (static_cast<int64_t>(out->size()) >= kMaxValues) {
          FailAt(p.where, "the range of " + p.name + " has more than 16777216 values");
        }
        out->push_back(Value::Int(v));
      }
    } else {
      for (int64_t v = 1; v <= a[1] && v > 0; v *= 2) {
        if (v >= a[0]) out->push_back(Value::Int(v));
      }
    }
  }

  WalkPlan Plan(const std::vector<char>& active, std::vector<uint64_t>* removed) const {
    WalkPlan plan;
    plan.active = active;
    plan.raw = std::none_of(active.begin(), active.end(), [](char a) { return a != 0; });
    plan.static_values.resize(levels.size());
    std::vector<Value> slots = base_slots;
    for (size_t l = 0; l < levels.size(); ++l) {
      const Level& level = levels[l];
      if (!level.is_static) continue;
      for (const Value& v : level.values) {
        slots[level.slot] = v;
        bool keep = true;
        for (int c : level.prefilters) {
          if (!active[c]) continue;
          Value r;
          if (compiled[c].Eval(slots.data(), &r) != EvalStatus::kOk || !r.Truthy()) {
            if (removed) ++(*removed)[c];
            keep = false;
            break;
          }
        }
        if (keep) plan.static_values[l].push_back(v);
      }
    }
    plan.free_from = levels.size();
    while (plan.free_from > 0) {
      const Level& level = levels[plan.free_from - 1];
      bool has_check = false;
      for (int c : level.checks) has_check = has_check || active[c];
      if (!level.is_static || has_check || (!plan.raw && !level.derived.empty())) break;
      --plan.free_from;
    }
    return plan;
  }

  struct WalkStats {
    std::vector<uint64_t>* removed = nullptr;
    std::vector<uint64_t>* invalid_eval = nullptr;
    uint64_t derived_errors = 0;
  };

  // Depth-first walk over valid points. Visit(slots) returns false to stop;
  // with count_only, the suffix of free levels is multiplied, not walked.
  template <bool kCountOnly, class Visit>
  bool Walk(const WalkPlan& plan, size_t l, Value* slots, std::vector<std::vector<Value>>& scratch,
            WalkStats& stats, uint64_t* count, Visit& visit) const {
    if (kCountOnly && l >= plan.free_from) {
      uint64_t product = 1;
      for (size_t k = l; k < levels.size(); ++k) product *= plan.static_values[k].size();
      *count += product;
      return true;
    }
    if (l == levels.size()) {
      ++*count;
      return kCountOnly ? true : visit(slots);
    }
    const Level& level = levels[l];
    const std::vector<Value>* values = &plan.static_values[l];
    if (!level.is_static) {
      ValueSet(level, slots, &scratch[l]);
      values = &scratch[l];
    }
    for (const Value& v : *values) {
      slots[level.slot] = v;
      bool ok = true;
      for (int d : level.derived) {
        if (derived[d].expr.Eval(slots, &slots[derived[d].slot]) != EvalStatus::kOk && !plan.raw) {
          ok = false;  // a point whose derived value cannot be computed is invalid
          ++stats.derived_errors;
          break;
        }
      }
      if (!ok) continue;
      for (int c : level.checks) {
        if (!plan.active[c]) continue;
        Value r;
        EvalStatus status = compiled[c].Eval(slots, &r);
        if (status != EvalStatus::kOk || !r.Truthy()) {
          if (stats.removed) ++(*stats.removed)[c];
          if (stats.invalid_eval && status != EvalStatus::kOk) ++(*stats.invalid_eval)[c];
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (!Walk<kCountOnly>(plan, l + 1, slots, scratch, stats, count, visit)) return false;
    }
    return true;
  }

  // Runs the problem/device-only checks, then the walk. Returns the count.
  template <bool kCountOnly, class Visit>
  uint64_t Run(const std::vector<char>& active, WalkStats& stats, Visit& visit) const {
    WalkPlan plan = Plan(active, stats.removed);
    std::vector<Value> slots = base_slots;
    for (int c : fixed_checks) {
      if (!active[c]) continue;
      Value r;
      EvalStatus status = compiled[c].Eval(slots.data(), &r);
      if (status != EvalStatus::kOk || !r.Truthy()) {
        if (stats.removed) ++(*stats.removed)[c];
        if (stats.invalid_eval && status != EvalStatus::kOk) ++(*stats.invalid_eval)[c];
        return 0;
      }
    }
    for (const auto& d : derived) {  // derived values that need no parameter
      if (d.level == -1 && d.expr.Eval(slots.data(), &slots[d.slot]) != EvalStatus::kOk &&
          !plan.raw) {
        ++stats.derived_errors;
        return 0;
      }
    }
    std::vector<std::vector<Value>> scratch(levels.size());
    uint64_t count = 0;
    Walk<kCountOnly>(plan, 0, slots.data(), scratch, stats, &count, visit);
    return count;
  }

  std::vector<char> AllActive() const {
    std::vector<char> active(constraints.size());
    for (size_t c = 0; c < constraints.size(); ++c) active[c] = constraint_level[c] != -2;
    return active;
  }

  uint64_t CountWith(const std::vector<char>& active) const {
    WalkStats stats;
    auto none = [](const Value*) { return true; };
    return Run<true>(active, stats, none);
  }

  Config MakeConfig(const Value* slots) const {
    std::vector<std::string> names;
    std::vector<Value> values;
    for (const auto& level : levels) {
      names.push_back(level.param->name);
      values.push_back(slots[level.slot]);
    }
    return Config(std::move(names), std::move(values));
  }

  void Bind(const std::vector<std::pair<std::string, int64_t>>& fixed, const BindOptions& options);
};

}  // namespace beast
