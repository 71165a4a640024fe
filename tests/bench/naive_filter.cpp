// The naive Cartesian filter (naive_filter.hpp).
#include "naive_filter.hpp"

#include <algorithm>
#include <functional>

#include "beast/core/error.hpp"

namespace beast::bench {

NaiveFilter::NaiveFilter(const SpaceSpec& spec,
                         const std::vector<std::pair<std::string, int64_t>>& fixed)
    : spec_(spec) {
  std::vector<std::string> names;
  for (const auto& [name, value] : fixed) {
    names.push_back(name);
    base_.push_back(Value::Int(value));
  }
  first_param_ = names.size();
  for (const auto& p : spec.params) names.push_back(p.name);
  for (const auto& d : spec.derived) names.push_back(d.name);
  base_.resize(names.size(), Value::Int(0));
  auto slot_of = [&](const std::string& n) {
    auto it = std::find(names.begin(), names.end(), n);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  // Derived values in dependency order: each after the derived values it reads.
  std::vector<char> placed(spec.derived.size(), 0);
  std::function<void(size_t)> place = [&](size_t d) {
    if (placed[d]) return;
    placed[d] = 1;
    for (const auto& n : spec.derived[d].expr.Names()) {
      for (size_t e = 0; e < spec.derived.size(); ++e) {
        if (spec.derived[e].name == n) place(e);
      }
    }
    derived_.emplace_back(slot_of(spec.derived[d].name), spec.derived[d].expr.Compile(slot_of));
  };
  for (size_t d = 0; d < spec.derived.size(); ++d) place(d);
  for (const auto& c : spec.constraints) {
    if (c.stage == ConstraintStage::kBeforeCompile) constraints_.push_back(c.expr.Compile(slot_of));
  }
  std::vector<Value> slots = base_;
  for (const auto& p : spec.params) {
    Param param;
    param.form = p.form;
    for (const auto& e : p.exprs) {
      param.exprs.push_back(e.Compile(slot_of));
      for (const auto& n : e.Names()) {
        if (slot_of(n) >= static_cast<int>(first_param_)) param.is_static = false;
      }
    }
    if (param.is_static) ValueSet(param, slots.data(), &param.values);
    params_.push_back(std::move(param));
  }
}

void NaiveFilter::ValueSet(const Param& p, const Value* slots, std::vector<Value>* out) const {
  out->clear();
  std::vector<int64_t> args;
  for (const auto& e : p.exprs) {
    Value v;
    if (e.Eval(slots, &v) != EvalStatus::kOk) {
      if (p.form == ParamSpec::Form::kValues) continue;
      return;
    }
    if (p.form == ParamSpec::Form::kValues)
      out->push_back(v);
    else
      args.push_back(v.IsFloat() ? static_cast<int64_t>(v.f) : v.i);
  }
  if (p.form == ParamSpec::Form::kRange) {
    int64_t step = args.size() > 2 ? args[2] : 1;
    if (step == 0) return;
    for (int64_t v = args[0]; step > 0 ? v < args[1] : v > args[1]; v += step)
      out->push_back(Value::Int(v));
  } else if (p.form == ParamSpec::Form::kPow2) {
    for (int64_t v = 1; v <= args[1] && v > 0; v *= 2) {
      if (v >= args[0]) out->push_back(Value::Int(v));
    }
  }
}

uint64_t NaiveFilter::Combinations(size_t depth) const {
  uint64_t combos = 1;
  for (size_t i = 0; i < depth; ++i) combos *= params_[i].values.size();
  return combos;
}

size_t NaiveFilter::DepthFor(uint64_t combos) const {
  for (size_t d = 1; d < params_.size() && params_[d - 1].is_static; ++d) {
    if (Combinations(d) >= combos) return d;
  }
  return 0;
}

std::string NaiveFilter::ParamNames(size_t depth) const {
  std::string out;
  for (size_t i = 0; i < depth; ++i) out += (i ? "," : "") + spec_.params[i].name;
  return out;
}

NaiveFilter::Result NaiveFilter::Run(size_t depth, uint64_t stride) const {
  Result result;
  std::vector<Value> slots = base_;
  std::vector<std::vector<Value>> scratch(params_.size());
  uint64_t combo = 0;
  const bool any_constraint = !constraints_.empty();
  // At the leaf: every derived value, then the constraints until one fails.
  auto leaf = [&](Value* s) {
    ++result.walked;
    for (const auto& [slot, expr] : derived_) {
      if (expr.Eval(s, &s[slot]) != EvalStatus::kOk && any_constraint) return;
    }
    for (const auto& c : constraints_) {
      Value r;
      if (c.Eval(s, &r) != EvalStatus::kOk || !r.Truthy()) return;
    }
    ++result.valid;
  };
  if (params_.empty()) return result;
  const size_t last = params_.size() - 1;
  std::function<void(size_t)> walk = [&](size_t i) {
    if (stride > 1 && i == depth && combo++ % stride != stride / 2) return;
    const Param& p = params_[i];
    const std::vector<Value>* values = &p.values;
    if (!p.is_static) {
      // A value set may read derived values of earlier parameters.
      for (const auto& [slot, expr] : derived_) expr.Eval(slots.data(), &slots[slot]);
      ValueSet(p, slots.data(), &scratch[i]);
      values = &scratch[i];
    }
    Value* target = &slots[first_param_ + i];
    if (i == last) {
      for (const Value& v : *values) {
        *target = v;
        leaf(slots.data());
      }
      return;
    }
    for (const Value& v : *values) {
      *target = v;
      walk(i + 1);
    }
  };
  walk(0);
  return result;
}

}  // namespace beast::bench
