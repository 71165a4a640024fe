// Checking a space's names (space_names_check.hpp).
#include "beast/space/space_names_check.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "beast/core/error.hpp"

namespace beast {
namespace {

[[noreturn]] void Fail(const SourceLocation& at, const std::string& why) {
  throw Error(ErrorCode::kBadInput, at.ToString() + ": " + why);
}

// A name the space's expressions can read: one identifier, not a word of
// the expression language ("not", "min", "True"), and not a compiled
// resource's, which after-compile constraints read instead.
void CheckName(const SourceLocation& where, const std::string& what, const std::string& name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  if (ok && IsFunctionName(name)) ok = false;
  if (ok) {
    try {
      ok = Expr::Parse(name).Names() == std::vector<std::string>{name};
    } catch (const Error&) {
      ok = false;
    }
  }
  if (!ok) {
    Fail(where, what + " \"" + name +
                    "\" is not a name an expression can read (letters, digits and _, not a "
                    "word of the expression language)");
  }
  const std::vector<std::string> compiled = CompiledResourceNames();
  if (std::find(compiled.begin(), compiled.end(), name) != compiled.end())
    Fail(where, what + " " + name + " shadows a compiled resource (after-compile constraints)");
  const std::vector<std::string> rendered = RenderedNames();
  if (std::find(rendered.begin(), rendered.end(), name) != rendered.end())
    Fail(where, what + " " + name + " shadows a name the renderer sets (" + rendered[0] + ", " +
                    rendered[1] + ", " + rendered[2] + ", " + rendered[3] + ", " + rendered[4] +
                    ")");
}

// Which names a space binds, and where.
class Names {
 public:
  explicit Names(const SpaceSpec& spec) : spec_(spec) {
    for (const auto& n : ProblemVariableNames(spec.op)) fixed_.insert(n);
    for (const auto& n : DeviceVariableNames()) fixed_.insert(n);
    IndexParams();
    IndexDerived();
    for (size_t d = 0; d < spec.derived.size(); ++d) {
      std::vector<std::string> path;
      Level(d, path);
    }
  }

  bool Fixed(const std::string& n) const { return fixed_.count(n) > 0; }
  bool Known(const std::string& n) const {
    return fixed_.count(n) || param_index_.count(n) || derived_index_.count(n);
  }
  // Whether `n` is bound before parameter `index` is chosen.
  bool BoundBefore(const std::string& n, int index) const {
    if (fixed_.count(n)) return true;
    if (param_index_.count(n)) return param_index_.at(n) < index;
    if (derived_index_.count(n)) return level_[derived_index_.at(n)] < index;
    return false;
  }

 private:
  void IndexParams() {
    for (size_t i = 0; i < spec_.params.size(); ++i) {
      const auto& p = spec_.params[i];
      CheckName(p.where, "parameter", p.name);
      if (fixed_.count(p.name))
        Fail(p.where, "parameter " + p.name + " shadows a problem or device name");
      if (!param_index_.emplace(p.name, static_cast<int>(i)).second)
        Fail(p.where, "parameter " + p.name + " is declared twice");
    }
  }

  void IndexDerived() {
    for (size_t i = 0; i < spec_.derived.size(); ++i) {
      const auto& d = spec_.derived[i];
      CheckName(d.where, "derived value", d.name);
      if (fixed_.count(d.name) || param_index_.count(d.name) ||
          !derived_index_.emplace(d.name, static_cast<int>(i)).second) {
        Fail(d.where, "derived value " + d.name + " reuses a name already bound");
      }
    }
    level_.assign(spec_.derived.size(), kUnvisited);
  }

  // The last parameter derived value `d` needs, through other derived
  // values (-1: none); `path` is the chain being resolved, for a cycle.
  int Level(size_t d, std::vector<std::string>& path) {
    const DerivedSpec& derived = spec_.derived[d];
    if (level_[d] == kVisiting) {
      std::string cycle;
      for (const auto& n : path) cycle += n + " -> ";
      Fail(derived.where, "derived values form a cycle: " + cycle + derived.name);
    }
    if (level_[d] != kUnvisited) return level_[d];
    level_[d] = kVisiting;
    path.push_back(derived.name);
    int level = -1;
    for (const auto& n : derived.expr.Names()) {
      if (fixed_.count(n)) continue;
      if (param_index_.count(n)) {
        level = std::max(level, param_index_[n]);
      } else if (derived_index_.count(n)) {
        level = std::max(level, Level(derived_index_[n], path));
      } else {
        Fail(derived.where,
             "derived value " + derived.name + " names unknown parameter \"" + n + "\"");
      }
    }
    path.pop_back();
    return level_[d] = level;
  }

  static constexpr int kUnvisited = -2, kVisiting = -3;
  const SpaceSpec& spec_;
  std::set<std::string> fixed_;  // problem and device names
  std::map<std::string, int> param_index_, derived_index_;
  std::vector<int> level_;  // per derived value
};

void CheckParams(const SpaceSpec& spec, const Names& names) {
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const auto& p = spec.params[i];
    for (const auto& e : p.exprs) {
      for (const auto& n : e.Names()) {
        if (!names.Known(n))
          Fail(p.where, "value set of " + p.name + " names unknown parameter \"" + n + "\"");
        if (!names.BoundBefore(n, static_cast<int>(i))) {
          Fail(p.where, "value set of " + p.name + " uses " + n +
                            " before it is bound (declare it earlier)");
        }
      }
    }
    if (!p.has_default) continue;
    for (const auto& n : p.default_value.Names()) {
      if (!names.Fixed(n)) {
        Fail(p.where,
             "default of " + p.name + " may read only problem and device names, not \"" + n + "\"");
      }
    }
  }
}

void CheckConstraints(const SpaceSpec& spec, const Names& names) {
  const std::vector<std::string> compiled_names = CompiledResourceNames();
  for (const auto& c : spec.constraints) {
    for (const auto& n : c.expr.Names()) {
      const bool compiled =
          std::find(compiled_names.begin(), compiled_names.end(), n) != compiled_names.end();
      if (compiled && c.stage == ConstraintStage::kAfterCompile) continue;
      if (!names.Known(n)) {
        Fail(c.where, "constraint \"" + c.expr.text() + "\" names unknown parameter \"" + n + "\"" +
                          (compiled ? " (compiled resources need stage: after_compile)" : ""));
      }
    }
  }
}

void CheckLaunch(const SpaceSpec& spec, const Names& names) {
  // Each expression with the line of its section (launch:, a stage of it,
  // validation:).
  std::vector<std::pair<const Expr*, SourceLocation>> launch;
  for (int d = 0; d < 3; ++d) {
    launch.emplace_back(&spec.launch_global[d], spec.launch_where);
    launch.emplace_back(&spec.launch_local[d], spec.launch_where);
  }
  if (spec.has_dynamic_local)
    launch.emplace_back(&spec.launch_dynamic_local_bytes, spec.launch_where);
  if (spec.has_shared_carveout)
    launch.emplace_back(&spec.launch_shared_carveout, spec.launch_where);
  if (spec.has_winograd_tile)
    launch.emplace_back(&spec.validation_winograd_tile, spec.validation_where);
  if (spec.has_workspace) launch.emplace_back(&spec.launch_workspace_bytes, spec.launch_where);
  for (const SpaceSpec::StageSpec& stage : spec.stages_before) {
    for (int d = 0; d < 3; ++d) {
      launch.emplace_back(&stage.global[d], stage.where);
      launch.emplace_back(&stage.local[d], stage.where);
    }
    launch.emplace_back(&stage.when, stage.where);
  }
  for (const auto& [e, where] : launch) {
    for (const auto& n : e->Names()) {
      if (!names.Known(n)) {
        Fail(where,
             "launch expression \"" + e->text() + "\" names unknown parameter \"" + n + "\"");
      }
    }
  }
}

}  // namespace

void CheckSpaceNames(const SpaceSpec& spec) {
  const Names names(spec);
  CheckParams(spec, names);
  CheckConstraints(spec, names);
  CheckLaunch(spec, names);
}

}  // namespace beast
