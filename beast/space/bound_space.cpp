// The pruned search space of one template for one problem and device:
// binding (slot layout, compiled expressions, what depends on what), the
// estimates the planner orders parameters by, counting and the report of
// what each constraint did (bound_space.hpp).
#include "beast/space/bound_space.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <thread>

#include "beast/core/error.hpp"
#include "beast/space/bound_space_impl.hpp"
#include "beast/space/space_counter.hpp"
#include "beast/space/space_plan.hpp"

namespace beast {
namespace {

// Names post-compile constraints read: resources of the compiled binary.
const char* const kResourceNames[] = {"registers", "spills", "stack_bytes", "local_mem_used"};

bool IsNan(const Value& v) { return v.kind == Value::Kind::kFloat && std::isnan(v.f); }

// A value listed (or computed) twice is one point of the space, not two:
// keeps the first of each run of equal values (Python equality, 1 == 1.0),
// in their order; a NaN equals nothing. O(n log n): a T1 list may hold
// millions.
void DropRepeatedValues(std::vector<Value>* values) {
  const std::vector<Value>& v = *values;
  if (v.size() < 2) return;
  if (v.size() <= 32) {  // the usual list: no allocation
    size_t kept = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      bool seen = false;
      for (size_t k = 0; k < kept && !seen; ++k) seen = !IsNan(v[i]) && (*values)[k].Equals(v[i]);
      if (!seen) (*values)[kept++] = v[i];
    }
    values->resize(kept);
    return;
  }
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const bool an = IsNan(v[a]), bn = IsNan(v[b]);
    if (an || bn) return an != bn ? bn : a < b;  // NaNs last
    const int c = CompareValues(v[a], v[b]);
    return c != 0 ? c < 0 : a < b;
  });
  std::vector<char> repeated(v.size(), 0);
  for (size_t k = 1; k < order.size(); ++k) {
    const Value& x = v[order[k - 1]];
    const Value& y = v[order[k]];
    if (!IsNan(x) && !IsNan(y) && CompareValues(x, y) == 0) repeated[order[k]] = 1;
  }
  size_t kept = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (!repeated[i]) (*values)[kept++] = v[i];
  values->resize(kept);
}

}  // namespace

BoundSpace::Impl::Impl() = default;
BoundSpace::Impl::~Impl() = default;

void BoundSpace::Impl::ValueSet(const Level& level, const Value* slots,
                                std::vector<Value>* out) const {
  out->clear();
  const ParamSpec& p = *level.param;
  Value args[3];
  size_t nargs = 0;
  for (const auto& e : level.exprs) {
    Value v;
    if (e.Eval(slots, &v) != EvalStatus::kOk) {
      if (p.form == ParamSpec::Form::kValues) continue;
      return;  // a range without bounds is empty
    }
    if (p.form == ParamSpec::Form::kValues)
      out->push_back(v);
    else
      args[nargs++] = v;
  }
  if (p.form == ParamSpec::Form::kValues) {
    DropRepeatedValues(out);
    return;
  }
  int64_t a[3] = {0, 0, 1};
  for (size_t i = 0; i < nargs; ++i) {
    if (!AsInt(args[i], &a[i])) {
      FailAt(p.where, "the bounds of " + p.name + " must be integers, got " + args[i].ToString());
    }
  }
  if (p.form == ParamSpec::Form::kRange) {
    if (a[2] == 0) FailAt(p.where, "the range step of " + p.name + " is zero");
    const int64_t kMaxValues = 1 << 24;
    for (int64_t v = a[0]; a[2] > 0 ? v < a[1] : v > a[1];) {
      if (static_cast<int64_t>(out->size()) >= kMaxValues) {
        FailAt(p.where, "the range of " + p.name + " has more than 16777216 values");
      }
      out->push_back(Value::Int(v));
      if (__builtin_add_overflow(v, a[2], &v)) break;  // past the int64 range: past stop
    }
  } else {
    // Powers of two in [lo, hi], doubling only while the next one is <= hi
    // (which also stops before 2^63 overflows).
    for (int64_t v = 1; v <= a[1]; v *= 2) {
      if (v >= a[0]) out->push_back(Value::Int(v));
      if (v > a[1] / 2) break;
    }
  }
}

unsigned BoundSpace::Impl::Threads(unsigned requested, double estimated_evals) const {
  // Below about this many evaluations (a fifth of a millisecond), starting a
  // thread and its counter costs more than sharing the walk saves.
  const double kEvalsWorthAThread = 2e4;
  if (requested > 0) return requested;
  if (estimated_evals < kEvalsWorthAThread) return 1;
  return std::max(1u, std::thread::hardware_concurrency());
}

void BoundSpace::Impl::Bind(const std::vector<std::pair<std::string, int64_t>>& fixed,
                            const BindOptions& bind_options) {
  options = bind_options;
  // ignore_soft drops the template's soft constraints only: the user's were
  // asked for on this very command line.
  for (const auto& c : spec.constraints) {
    if (!(options.ignore_soft && c.kind == ConstraintKind::kSoft)) constraints.push_back(c);
  }
  for (const auto& c : options.extra) constraints.push_back(c);
  // Slots: problem and device names, parameters, derived values, resources.
  for (const auto& [name, value] : fixed) {
    slot_names.push_back(name);
    base_slots.push_back(Value::Int(value));
  }
  first_param_slot = static_cast<int>(slot_names.size());
  std::map<std::string, int> param_level;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    param_level[spec.params[i].name] = static_cast<int>(i);
    slot_names.push_back(spec.params[i].name);
  }
  first_derived_slot = static_cast<int>(slot_names.size());
  std::map<std::string, int> derived_index;
  for (size_t i = 0; i < spec.derived.size(); ++i) {
    derived_index[spec.derived[i].name] = static_cast<int>(i);
    slot_names.push_back(spec.derived[i].name);
  }
  first_resource_slot = static_cast<int>(slot_names.size());
  for (const char* name : kResourceNames) slot_names.push_back(name);
  base_slots.resize(slot_names.size(), Value::Int(0));
  auto slot_of = [this](const std::string& n) {
    int s = SlotOf(n);
    return s >= first_resource_slot ? -1 : s;
  };
  // Topological order of derived values (the loader has ruled out cycles),
  // with the parameters each needs through the others.
  std::vector<std::set<int>> params_of(spec.derived.size());
  std::vector<char> done(spec.derived.size(), 0);
  std::vector<int> order;
  std::function<void(int)> visit = [&](int d) {
    if (done[d]) return;
    done[d] = 1;
    for (const auto& n : spec.derived[d].expr.Names()) {
      if (param_level.count(n)) {
        params_of[d].insert(param_level[n]);
      } else if (derived_index.count(n)) {
        visit(derived_index[n]);
        params_of[d].insert(params_of[derived_index[n]].begin(), params_of[derived_index[n]].end());
      }
    }
    order.push_back(d);
  };
  for (size_t d = 0; d < spec.derived.size(); ++d) visit(static_cast<int>(d));
  // The parameters an expression needs, directly or through derived values.
  auto params_of_expr = [&](const Expr& e, bool* reads_derived) {
    std::set<int> params;
    for (const auto& n : e.Names()) {
      if (param_level.count(n)) {
        params.insert(param_level[n]);
      } else if (derived_index.count(n)) {
        const auto& p = params_of[derived_index[n]];
        params.insert(p.begin(), p.end());
        if (reads_derived) *reads_derived = true;
      }
    }
    return std::vector<int>(params.begin(), params.end());
  };
  hidden_from_source.assign(slot_names.size(), 0);
  for (size_t i = 0; i < spec.params.size(); ++i)
    hidden_from_source[first_param_slot + i] = spec.params[i].at_launch;
  for (int d : order) {
    for (int p : params_of[d])
      if (spec.params[p].at_launch) hidden_from_source[SlotOf(spec.derived[d].name)] = 1;
  }
  for (int d : order) {
    std::vector<int> params(params_of[d].begin(), params_of[d].end());
    int level = params.empty() ? -1 : params.back();
    derived.push_back(
        {SlotOf(spec.derived[d].name), spec.derived[d].expr.Compile(slot_of), level, params});
  }
  levels.resize(spec.params.size());
  for (size_t i = 0; i < spec.params.size(); ++i) {
    Level& level = levels[i];
    level.param = &spec.params[i];
    level.slot = first_param_slot + static_cast<int>(i);
    std::set<int> params;
    for (const auto& e : spec.params[i].exprs) {
      level.exprs.push_back(e.Compile(slot_of));
      for (int p : params_of_expr(e, nullptr)) params.insert(p);
    }
    level.params.assign(params.begin(), params.end());
    level.is_static = level.params.empty();
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
    bool after = IsAfterCompile(c);
    compiled.push_back(constraints[c].expr.Compile([&](const std::string& n) {
      int slot = SlotOf(n);
      if (slot < 0 || (slot >= first_resource_slot && !after)) {
        FailAt(constraints[c].where,
               "constraint \"" + constraints[c].expr.text() + "\" names unknown parameter \"" + n +
                   "\"" + (slot < 0 ? "" : " (compiled resources need stage: after_compile)"));
      }
      return slot;
    }));
    bool reads_derived = false;
    constraint_params.push_back(params_of_expr(constraints[c].expr, &reads_derived));
    constraint_reads_derived.push_back(reads_derived);
  }
  for (int k = 0; k < 2; ++k) {
    for (int d = 0; d < 3; ++d) {
      launch[k][d].push_back(
          (k == 0 ? spec.launch_global[d] : spec.launch_local[d]).Compile(slot_of));
    }
  }
  if (spec.has_dynamic_local)
    dynamic_local_bytes.push_back(spec.launch_dynamic_local_bytes.Compile(slot_of));
  if (spec.has_shared_carveout)
    shared_carveout.push_back(spec.launch_shared_carveout.Compile(slot_of));
  if (spec.has_winograd_tile)
    winograd_tile.push_back(spec.validation_winograd_tile.Compile(slot_of));
  if (spec.has_workspace) workspace_bytes.push_back(spec.launch_workspace_bytes.Compile(slot_of));
  for (const SpaceSpec::StageSpec& stage : spec.stages_before) {
    std::vector<CompiledExpr> compiled;
    for (const Expr* e : {&stage.global[0], &stage.global[1], &stage.global[2], &stage.local[0],
                          &stage.local[1], &stage.local[2], &stage.when})
      compiled.push_back(e->Compile(slot_of));
    stages_before.push_back(std::move(compiled));
  }
  Estimate();
  plan = std::make_unique<space::Plan>(space::MakePlan(*this, AllActive(), options.reorder));
}

std::string WhyNotApplicable(const SpaceSpec& spec, const Problem& problem, Backend backend) {
  if (spec.op != problem.op())
    return std::string("is a ") + (spec.op == OpKind::kGemm ? "gemm" : "conv2d") +
           " template, the problem is " + problem.OpName();
  if (std::find(spec.backends.begin(), spec.backends.end(), backend) == spec.backends.end()) {
    std::string names;
    for (Backend b : spec.backends)
      names +=
          (names.empty() ? "" : " and ") + std::string(b == Backend::kCuda ? "CUDA" : "OpenCL");
    return std::string("has no ") + (backend == Backend::kCuda ? "CUDA" : "OpenCL") +
           " form (it renders for " + names + " only)";
  }
  if (std::find(spec.dtypes.begin(), spec.dtypes.end(), problem.dtype()) == spec.dtypes.end()) {
    std::string names;
    for (DType d : spec.dtypes) names += (names.empty() ? "" : ", ") + std::string(DTypeName(d));
    return std::string("does not support dtype ") + DTypeName(problem.dtype()) +
           " (its dtypes: " + names + ")";
  }
  if (spec.op == OpKind::kConv2d && std::find(spec.layouts.begin(), spec.layouts.end(),
                                              problem.conv().layout) == spec.layouts.end())
    return std::string("does not support layout ") + LayoutName(problem.conv().layout);
  return "";
}

BoundSpace::BoundSpace(const SpaceSpec& spec, const Problem& problem, const DeviceInfo& device,
                       BindOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->spec = spec;
  const std::string why = WhyNotApplicable(spec, problem, device.backend);
  if (!why.empty())
    throw Error(ErrorCode::kBadArgument,
                "template " + spec.name + " " + why + ", problem " + problem.Key());
  for (const auto& [name, value] : problem.Variables())
    impl_->problem_vars.emplace_back(name, value);
  std::vector<std::pair<std::string, int64_t>> fixed = impl_->problem_vars;
  for (const auto& [name, value] : device.Variables()) fixed.emplace_back(name, value);
  impl_->Bind(fixed, options);
}

BoundSpace::BoundSpace(const SpaceSpec& spec,
                       const std::vector<std::pair<std::string, int64_t>>& fixed,
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

std::vector<std::string> BoundSpace::WalkOrder() const {
  std::vector<std::string> names;
  for (int n : impl_->plan->linear)
    names.push_back(impl_->levels[impl_->plan->nodes[n].level].param->name);
  return names;
}

uint64_t BoundSpace::RawSize() const {
  const Impl& m = *impl_;
  space::Plan raw = space::MakePlan(m, std::vector<char>(m.constraints.size(), 0),
                                    m.options.reorder, nullptr, /*raw=*/true);
  return space::CountPlan(m, raw, 1, nullptr);
}

uint64_t BoundSpace::Count() const { return Count(impl_->options.threads); }

uint64_t BoundSpace::Count(unsigned threads) const {
  return space::CountPlan(*impl_, *impl_->plan, impl_->Threads(threads, impl_->plan->cost),
                          nullptr);
}

SpaceReport BoundSpace::Explain() const {
  const Impl& m = *impl_;
  unsigned threads = m.Threads(m.options.threads, m.plan->cost);
  size_t n = m.constraints.size();
  SpaceReport report;
  report.raw = RawSize();
  space::WalkStats stats(n);
  std::vector<char> all = m.AllActive();
  space::Plan plan = space::MakePlan(m, all, m.options.reorder, &stats.removed);
  report.valid = space::CountPlan(m, plan, threads, &stats);
  report.derived_errors = stats.derived_errors;
  // The derived values no parameter changes: one that fails fails for all.
  std::vector<Value> slots = m.base_slots;
  for (const Impl::Derived& d : m.derived) {
    if (!d.params.empty() || d.expr.Eval(slots.data(), &slots[d.slot]) == EvalStatus::kOk) continue;
    for (const DerivedSpec& spec : m.spec.derived) {
      if (m.SlotOf(spec.name) == d.slot)
        report.failed_derived =
            spec.name + " = " + spec.expr.text() + " (" + spec.where.ToString() + ")";
    }
    break;
  }
  // The configs whose derived values all compute: what the constraints
  // start from, so that a constraint is charged only with what it removes.
  std::vector<char> prefix(n, 0);
  report.computable =
      report.raw == 0
          ? 0
          : space::CountPlan(m, space::MakePlan(m, prefix, m.options.reorder), threads, nullptr);
  uint64_t remaining = report.computable;
  for (size_t c = 0; c < n; ++c) {
    ConstraintReport r;
    r.spec = &m.constraints[c];
    if (m.IsAfterCompile(c)) {
      r.checked_at = "after compile";
    } else if (m.constraint_params[c].empty()) {
      r.checked_at = "problem/device";
    } else if (plan.prefilter_level[c] >= 0) {
      r.checked_at = m.levels[plan.prefilter_level[c]].param->name;
      r.prefilter = true;
    } else {
      r.checked_at = m.levels[plan.nodes[plan.check_node[c]].level].param->name;
    }
    r.removed = stats.removed[c];
    r.invalid_eval = stats.invalid[c];
    // Counts only fall as constraints are added: once empty, always empty.
    if (all[c] && remaining > 0) {
      prefix[c] = 1;
      remaining =
          space::CountPlan(m, space::MakePlan(m, prefix, m.options.reorder), threads, nullptr);
    }
    r.remaining = remaining;
    if (r.remaining == 0 && report.emptied_by < 0 && report.computable > 0)
      report.emptied_by = static_cast<int>(c);
    report.constraints.push_back(r);
  }
  // Whether --ignore-soft would leave configs: only then is it worth saying.
  // It drops the template's soft constraints (the first ones; the user's
  // follow), and nothing when it is in force already.
  const size_t first_users = n - m.options.extra.size();
  if (report.valid == 0 && report.computable > 0 && !m.options.ignore_soft) {
    std::vector<char> hard(n, 0);
    bool soft_active = false;
    for (size_t c = 0; c < n; ++c) {
      hard[c] = all[c] && (c >= first_users || m.constraints[c].kind != ConstraintKind::kSoft);
      soft_active = soft_active || (all[c] && !hard[c]);
    }
    report.hard_only =
        soft_active
            ? space::CountPlan(m, space::MakePlan(m, hard, m.options.reorder), threads, nullptr)
            : 0;
  }
  // A value set that is empty for this problem and device, by name.
  for (const Impl::Level& level : m.levels) {
    if (level.is_static && level.values.empty()) {
      report.empty_parameter = level.param->name + " (" + level.param->where.ToString() + ")";
      break;
    }
  }
  return report;
}

}  // namespace beast
