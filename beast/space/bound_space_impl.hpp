// The private representation of BoundSpace: the slot layout, the parameters
// in declared order (levels) with what each one's value set reads, the
// constraints with the parameters they depend on, the estimates the planner
// orders parameters by, and the walk plan of the full constraint set.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/space/bound_space.hpp"

namespace beast {
namespace space {
struct Plan;
class Counter;
}  // namespace space

struct BoundSpace::Impl {
  struct Derived {
    int slot;
    CompiledExpr expr;
    int level;                // the last declared parameter it needs (-1: none)
    std::vector<int> params;  // declared parameters it needs, through other derived values
  };
  struct Level {
    int slot = 0;
    const ParamSpec* param = nullptr;
    bool is_static = false;           // the value set reads no parameter
    std::vector<Value> values;        // static value set, before prefilters
    std::vector<CompiledExpr> exprs;  // the value set's expressions
    std::vector<int> derived;         // derived values whose last parameter this is
    std::vector<int> params;          // parameters the value set reads (via derived too)
    double mean_size = 0;             // estimated value-set size (sampled when dynamic)
  };

  SpaceSpec spec;
  BindOptions options;
  std::vector<std::pair<std::string, int64_t>> problem_vars;  // handed to templates
  std::vector<ConstraintSpec> constraints;
  std::vector<CompiledExpr> compiled;               // per constraint (after-compile ones too)
  std::vector<std::vector<int>> constraint_params;  // per constraint, ascending
  std::vector<char> constraint_reads_derived;
  std::vector<double> pass_rate;  // per constraint, estimated on random points
  std::vector<std::string> slot_names;
  std::vector<Value> base_slots;
  int first_param_slot = 0;
  int first_derived_slot = 0;
  int first_resource_slot = 0;   // compiled resources: registers, spills, ...
  std::vector<Derived> derived;  // topological order
  std::vector<Level> levels;     // one per parameter, declared order
  std::vector<CompiledExpr> launch[2][3];
  // The optional launch settings, compiled when the spec has them.
  std::vector<CompiledExpr> dynamic_local_bytes, shared_carveout, winograd_tile, workspace_bytes;
  // Per `launch: before:` stage: global x3, local x3, when.
  std::vector<std::vector<CompiledExpr>> stages_before;
  // Per slot: a launch-time parameter, or a derived value that reads one,
  // which the renderer must not see.
  std::vector<char> hidden_from_source;

  std::unique_ptr<space::Plan> plan;  // the walk of every before-compile constraint
  // At, IndexOf and Sample keep subtree counts between calls.
  mutable std::mutex index_mutex;
  mutable std::unique_ptr<space::Counter> index_counter;

  Impl();
  ~Impl();

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
      // Outside [-2^63, 2^63) the cast below is undefined: not an int64.
      if (!(v.f >= -9223372036854775808.0 && v.f < 9223372036854775808.0)) return false;
      if (v.f != static_cast<double>(static_cast<int64_t>(v.f))) return false;
      *out = static_cast<int64_t>(v.f);
      return true;
    }
    *out = v.i;
    return true;
  }

  bool IsAfterCompile(size_t c) const {
    return constraints[c].stage == ConstraintStage::kAfterCompile;
  }

  // Evaluates a level's value set with the slots bound so far. Values whose
  // expression fails (division by zero) are left out.
  void ValueSet(const Level& level, const Value* slots, std::vector<Value>* out) const;

  // Active flags of every before-compile constraint.
  std::vector<char> AllActive() const {
    std::vector<char> active(constraints.size());
    for (size_t c = 0; c < constraints.size(); ++c) active[c] = !IsAfterCompile(c);
    return active;
  }

  // The threads to use: `requested`, or for 0 one per core when the walk is
  // estimated to cost enough evaluations to gain from sharing (else one).
  unsigned Threads(unsigned requested, double estimated_evals) const;

  Config MakeConfig(const Value* slots) const {
    std::vector<std::string> names;
    std::vector<Value> values;
    names.reserve(levels.size());
    values.reserve(levels.size());
    for (const auto& level : levels) {
      names.push_back(level.param->name);
      values.push_back(slots[level.slot]);
    }
    return Config(std::move(names), std::move(values));
  }

  void Bind(const std::vector<std::pair<std::string, int64_t>>& fixed, const BindOptions& options);
  // Estimates pass rates and value-set sizes on random raw points (fixed seed).
  void Estimate();
};

}  // namespace beast
