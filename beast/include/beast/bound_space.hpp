// BoundSpace: a SpaceSpec bound to one problem and one device — the pruned
// search space itself. Value sets are evaluated, every constraint is checked
// at the earliest parameter where all its names are bound (hoisting), single-
// parameter constraints filter static value lists up front, and valid configs
// are produced lazily in declared parameter order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "beast/config.hpp"
#include "beast/device.hpp"
#include "beast/problem.hpp"
#include "beast/space_spec.hpp"

namespace beast {

struct BindOptions {
  bool ignore_soft = false;                // explore all the hard constraints allow
  std::vector<ConstraintSpec> extra;       // user constraints (--constraint, --constraints)
};

// What one constraint did to the space.
struct ConstraintReport {
  const ConstraintSpec* spec = nullptr;
  std::string checked_at;      // the parameter after which it is checked, or "problem/device"
  bool prefilter = false;      // applied to a value list up front
  uint64_t removed = 0;        // partial points (or values, for a prefilter) it rejected there
  uint64_t invalid_eval = 0;   // of those, rejected by division by zero / domain error
  uint64_t remaining = 0;      // full points left after it and every constraint before it
};

struct SpaceReport {
  uint64_t raw = 0;            // Cartesian size of the value sets, no constraint applied
  uint64_t valid = 0;
  std::vector<ConstraintReport> constraints;  // in declared order (template, then extra)
  uint64_t derived_errors = 0; // points dropped because a derived value could not be computed
  int emptied_by = -1;         // index of the constraint that left nothing, or -1
};

// A config made concrete: what the renderer and the launcher need.
struct Instance {
  Config config;
  std::vector<std::pair<std::string, Value>> vars;  // problem names, parameters, derived values
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
};

class BoundSpace {
 public:
  BoundSpace(const SpaceSpec& spec, const Problem& problem, const DeviceInfo& device,
             BindOptions options = {});
  // A space over given fixed names only (e.g. a T1 tuning problem that has
  // no beast problem or device).
  BoundSpace(const SpaceSpec& spec, const std::vector<std::pair<std::string, int64_t>>& fixed,
             BindOptions options = {});
  ~BoundSpace();
  BoundSpace(BoundSpace&&) noexcept;
  BoundSpace& operator=(BoundSpace&&) noexcept;

  const SpaceSpec& spec() const;
  // The constraints in force (template's, then extra), soft ones included
  // unless ignore_soft; post-compile ones are listed but not enumerated.
  const std::vector<ConstraintSpec>& constraints() const;

  uint64_t RawSize() const;
  uint64_t Count() const;
  // Visits valid configs in order until visit returns false.
  void ForEach(const std::function<bool(const Config&)>& visit) const;
  std::vector<Config> Enumerate(size_t limit = SIZE_MAX) const;
  SpaceReport Explain() const;

  // Whether config is a point of the space; when not, why (one line). With
  // hard_only, soft constraints are not checked: the config is correct and
  // runnable, if not one the space would propose (a template's default on a
  // small problem, say).
  bool Check(const Config& config, std::string* why, bool hard_only = false) const;
  // The template's default config (every parameter's default). Throws
  // Error(kBadInput) when a parameter has none.
  Config DefaultConfig() const;
  // Binds config (which must pass Check with hard_only) into an Instance.
  Instance Instantiate(const Config& config) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace beast

namespace beast {
// One line naming the constraint that left the space empty, e.g.
// 'constraint "MWG <= M" (FILE:LINE) removed the last configs'.
std::string WhyEmpty(const SpaceReport& report);
}  // namespace beast
