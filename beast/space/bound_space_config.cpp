// Single configs of a bound space: membership check with the reason, the
// post-compile check on the binary's resources, the template's default
// config, instantiation for rendering and launch, and the one-line
// explanation of an empty space.
#include <cstdint>
#include <map>

#include "beast/core/error.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/bound_space_impl.hpp"

namespace beast {

namespace {

std::string Violation(const ConstraintSpec& c, EvalStatus status) {
  return "violates " + std::string(ConstraintKindName(c.kind)) + " constraint \"" + c.expr.text() +
         "\" (" + c.where.ToString() + ")" +
         (status == EvalStatus::kOk ? "" : ": division by zero or domain error");
}

}  // namespace

bool BoundSpace::Check(const Config& config, std::string* why, bool hard_only) const {
  const Impl& m = *impl_;
  auto fail = [&](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  if (config.size() != m.levels.size()) {
    return fail("the config has " + std::to_string(config.size()) + " parameters, the space " +
                std::to_string(m.levels.size()));
  }
  std::vector<Value> slots = m.base_slots;
  for (const auto& d : m.derived) {
    if (d.level == -1) d.expr.Eval(slots.data(), &slots[d.slot]);
  }
  // Value sets read only earlier parameters, so membership is decided in
  // declared order; then every constraint in force, in declared order.
  std::vector<Value> values;
  for (size_t l = 0; l < m.levels.size(); ++l) {
    const auto& level = m.levels[l];
    if (config.names()[l] != level.param->name) {
      return fail("parameter " + std::to_string(l + 1) + " is " + config.names()[l] +
                  ", expected " + level.param->name);
    }
    const Value& v = config.values()[l];
    if (level.is_static)
      values = level.values;
    else
      m.ValueSet(level, slots.data(), &values);
    bool member = false;
    for (const auto& x : values) member = member || x.Equals(v);
    if (!member) return fail(level.param->name + "=" + v.ToString() + " is not in its value set");
    slots[level.slot] = v;
    for (int d : level.derived) {
      if (m.derived[d].expr.Eval(slots.data(), &slots[m.derived[d].slot]) != EvalStatus::kOk) {
        return fail("derived value " + m.slot_names[m.derived[d].slot] +
                    " cannot be computed (division by zero)");
      }
    }
  }
  for (size_t c = 0; c < m.constraints.size(); ++c) {
    if (m.IsAfterCompile(c) || (hard_only && m.constraints[c].kind == ConstraintKind::kSoft))
      continue;
    Value r;
    EvalStatus s = m.compiled[c].Eval(slots.data(), &r);
    if (s != EvalStatus::kOk || !r.Truthy()) return fail(Violation(m.constraints[c], s));
  }
  return true;
}

bool BoundSpace::CheckAfterCompile(const Config& config,
                                   const std::map<std::string, int64_t>& resources,
                                   std::string* why, bool skip_missing) const {
  const Impl& m = *impl_;
  bool names_match = config.size() == m.levels.size();
  for (size_t l = 0; names_match && l < m.levels.size(); ++l) {
    names_match = config.names()[l] == m.levels[l].param->name;
  }
  if (!names_match) {
    throw Error(ErrorCode::kBadArgument,
                "config " + config.Key() + " does not bind the parameters of " + m.spec.name);
  }
  std::vector<Value> slots = m.base_slots;
  for (size_t l = 0; l < m.levels.size(); ++l) slots[m.levels[l].slot] = config.values()[l];
  for (const auto& d : m.derived) {
    if (d.expr.Eval(slots.data(), &slots[d.slot]) != EvalStatus::kOk) {
      throw Error(ErrorCode::kBadArgument, "config " + config.Key() + ": derived value " +
                                               m.slot_names[d.slot] +
                                               " cannot be computed (division by zero)");
    }
  }
  std::vector<char> given(m.slot_names.size(), 0);
  for (const auto& [name, value] : resources) {
    int slot = m.SlotOf(name);
    if (slot < m.first_resource_slot) {
      throw Error(ErrorCode::kBadArgument,
                  "unknown compiled resource \"" + name +
                      "\" (known: registers, spills, stack_bytes, local_mem_used)");
    }
    slots[slot] = Value::Int(value);
    given[slot] = 1;
  }
  for (size_t c = 0; c < m.constraints.size(); ++c) {
    if (!m.IsAfterCompile(c)) continue;
    bool missing = false;
    for (const auto& name : m.constraints[c].expr.Names()) {
      int s = m.SlotOf(name);
      if (s >= m.first_resource_slot && !given[s]) {
        if (!skip_missing) {
          throw Error(ErrorCode::kBadArgument, "constraint \"" + m.constraints[c].expr.text() +
                                                   "\" needs compiled resource \"" + name +
                                                   "\", which was not given");
        }
        missing = true;
      }
    }
    if (missing) continue;
    Value r;
    EvalStatus s = m.compiled[c].Eval(slots.data(), &r);
    if (s != EvalStatus::kOk || !r.Truthy()) {
      if (why) *why = Violation(m.constraints[c], s) + " after compile";
      return false;
    }
  }
  return true;
}

Config BoundSpace::DefaultConfig() const {
  const Impl& m = *impl_;
  std::vector<std::string> names;
  std::vector<Value> values;
  std::vector<Value> slots = m.base_slots;
  for (const auto& level : m.levels) {
    const ParamSpec& p = *level.param;
    if (!p.has_default) {
      throw Error(ErrorCode::kBadInput,
                  p.where.ToString() + ": parameter " + p.name + " has no default");
    }
    Value v;
    if (p.default_value.Compile([&](const std::string& n) { return m.SlotOf(n); })
            .Eval(slots.data(), &v) != EvalStatus::kOk) {
      throw Error(ErrorCode::kBadInput,
                  p.where.ToString() + ": the default of " + p.name + " cannot be computed");
    }
    names.push_back(p.name);
    values.push_back(v);
  }
  return Config(std::move(names), std::move(values));
}

Instance BoundSpace::Instantiate(const Config& config) const {
  const Impl& m = *impl_;
  std::string why;
  if (!Check(config, &why, /*hard_only=*/true)) {
    throw Error(ErrorCode::kBadArgument,
                "config " + config.Key() + " is not in the space of " + m.spec.name + ": " + why);
  }
  std::vector<Value> slots = m.base_slots;
  for (size_t l = 0; l < m.levels.size(); ++l) slots[m.levels[l].slot] = config.values()[l];
  for (const auto& d : m.derived) d.expr.Eval(slots.data(), &slots[d.slot]);
  Instance inst;
  inst.config = config;
  for (const auto& [name, value] : m.problem_vars) inst.vars.emplace_back(name, Value::Int(value));
  for (int s = m.first_param_slot; s < m.first_resource_slot; ++s) {
    if (!m.hidden_from_source[s]) inst.vars.emplace_back(m.slot_names[s], slots[s]);
  }
  auto size_of = [&](const CompiledExpr& compiled, const Expr& e) {
    Value v;
    int64_t size = 0;
    if (compiled.Eval(slots.data(), &v) != EvalStatus::kOk || !Impl::AsInt(v, &size) || size <= 0) {
      throw Error(ErrorCode::kBadInput, m.spec.space_path + ": launch size \"" + e.text() +
                                            "\" is not a positive integer for " + config.Key());
    }
    return static_cast<size_t>(size);
  };
  for (int d = 0; d < 3; ++d) {
    inst.global[d] = size_of(m.launch[0][d][0], m.spec.launch_global[d]);
    inst.local[d] = size_of(m.launch[1][d][0], m.spec.launch_local[d]);
  }
  for (size_t s = 0; s < m.stages_before.size(); ++s) {
    const SpaceSpec::StageSpec& spec = m.spec.stages_before[s];
    const std::vector<CompiledExpr>& compiled = m.stages_before[s];
    Value when;
    if (compiled[6].Eval(slots.data(), &when) != EvalStatus::kOk) {
      throw Error(ErrorCode::kBadInput, m.spec.space_path + ": launch before " + spec.kernel +
                                            " when \"" + spec.when.text() +
                                            "\" cannot be computed for " + config.Key());
    }
    if (when.AsDouble() == 0) continue;
    Instance::Stage stage;
    stage.kernel = spec.kernel;
    stage.prepare = spec.prepare;
    for (int d = 0; d < 3; ++d) {
      stage.global[d] = size_of(compiled[d], spec.global[d]);
      stage.local[d] = size_of(compiled[3 + d], spec.local[d]);
    }
    inst.before.push_back(std::move(stage));
  }
  // The optional launch settings: an integer each, bytes >= 0, carveout -1
  // (the driver's choice) or a percentage.
  auto setting = [&](const std::vector<CompiledExpr>& compiled, const Expr& e, const char* what,
                     int64_t lo, int64_t hi, int64_t* out) {
    if (compiled.empty()) return;
    Value v;
    if (compiled[0].Eval(slots.data(), &v) != EvalStatus::kOk || !Impl::AsInt(v, out) ||
        *out < lo || *out > hi) {
      throw Error(ErrorCode::kBadInput, m.spec.space_path + ": " + what + " \"" + e.text() +
                                            "\" is not an integer from " + std::to_string(lo) +
                                            " to " + std::to_string(hi) + " for " + config.Key());
    }
  };
  setting(m.dynamic_local_bytes, m.spec.launch_dynamic_local_bytes, "launch dynamic_local_bytes", 0,
          INT64_MAX, &inst.dynamic_local_bytes);
  setting(m.shared_carveout, m.spec.launch_shared_carveout, "launch shared_carveout", -1, 100,
          &inst.shared_carveout);
  setting(m.winograd_tile, m.spec.validation_winograd_tile, "validation winograd_tile", 2, 4,
          &inst.winograd_tile);
  setting(m.workspace_bytes, m.spec.launch_workspace_bytes, "launch workspace_bytes", 0, INT64_MAX,
          &inst.workspace_bytes);
  return inst;
}

}  // namespace beast

namespace beast {

std::string WhyEmpty(const SpaceReport& report) {
  if (report.raw == 0)
    return report.empty_parameter.empty()
               ? "a parameter's value set is empty"
               : "the value set of parameter " + report.empty_parameter + " is empty";
  if (!report.failed_derived.empty())
    return "the derived value " + report.failed_derived +
           " cannot be computed for this problem (integer overflow or division by zero), "
           "which removes every config";
  std::string why = "every config has a derived value that cannot be computed (division by zero)";
  if (report.emptied_by >= 0) {
    const ConstraintSpec& c = *report.constraints[report.emptied_by].spec;
    why = std::string(ConstraintKindName(c.kind)) + " constraint \"" + c.expr.text() + "\" (" +
          c.where.ToString() + ") removed the last configs";
  }
  // The others that removed configs on the way, as `beast space` counts
  // them, and whether dropping the soft ones could leave some.
  std::string before;
  bool soft = false;
  for (size_t i = 0; i < report.constraints.size(); ++i) {
    const ConstraintReport& r = report.constraints[i];
    if (r.removed == 0) continue;
    soft = soft || r.spec->kind == ConstraintKind::kSoft;
    // Before it as they are counted: in declared order.
    if (report.emptied_by >= 0 && static_cast<int>(i) >= report.emptied_by) continue;
    before += (before.empty() ? "" : ", ") + std::string(ConstraintKindName(r.spec->kind)) + " \"" +
              r.spec->expr.text() + "\" " + std::to_string(r.removed);
  }
  if (!before.empty()) why += " (before it: " + before + ")";
  // Said only when dropping the soft constraints would leave configs.
  if (soft && report.hard_only > 0)
    why += "; soft constraints removed configs: --ignore-soft drops the template's";
  return why;
}

}  // namespace beast
