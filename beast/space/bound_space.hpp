// BoundSpace: a SpaceSpec bound to one problem and one device — the pruned
// search space itself. Value sets are evaluated, single-parameter constraints
// filter static value lists up front, and the engine walks the parameters in
// an order that prunes early (dependencies respected), checking every
// constraint as soon as all its names are bound and counting independent
// groups of parameters separately, so spaces of billions of raw points are
// counted, indexed and sampled without listing them.
//
// Order of configs. ForEach, Enumerate, At, IndexOf and Sample share one
// order: lexicographic over WalkOrder(), each parameter's values in the order
// its value set lists them. With BindOptions::reorder off, WalkOrder() is the
// declared order (the order of a plain nested loop over the declaration);
// with it on (the default) the order is a deterministic function of the
// space, the problem, the device and the options. Configs always carry their
// parameters in declared order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "beast/core/config.hpp"
#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"
#include "beast/space/space_spec.hpp"

namespace beast {

struct BindOptions {
  bool ignore_soft = false;           // drop the template's soft constraints (not extra's)
  std::vector<ConstraintSpec> extra;  // user constraints (--constraint, --constraints)
  // Walk the most constrained parameters first and independent groups one
  // after another (faster); off: walk in declared order.
  bool reorder = true;
  // Threads that Count(), Explain() and Enumerate() use when not given one;
  // 0: one per core where the space is estimated big enough to gain from it.
  unsigned threads = 1;
};

// What one constraint did to the space.
struct ConstraintReport {
  const ConstraintSpec* spec = nullptr;
  std::string checked_at;  // the parameter after which it is checked, or "problem/device"
  bool prefilter = false;  // applied to a value list up front
  // Partial configs (or values, for a prefilter) it rejected where it is
  // checked; a partial config binds the parameters walked before it on its
  // branch of the walk (independent groups of parameters are walked apart).
  uint64_t removed = 0;
  uint64_t invalid_eval = 0;  // of those, rejected by division by zero / domain error
  uint64_t remaining = 0;     // full points left after it and every constraint before it
};

struct SpaceReport {
  uint64_t raw = 0;  // Cartesian size of the value sets, no constraint applied
  // Of those, the configs whose derived values can all be computed (a
  // division by zero or an overflow removes the others before any check).
  uint64_t computable = 0;
  uint64_t valid = 0;
  // When nothing is valid: the configs --ignore-soft would leave, the
  // template's soft constraints dropped (0 when it has none active, when
  // --ignore-soft is in force already, or when something is valid).
  uint64_t hard_only = 0;
  // The first parameter whose value set is empty for this problem and
  // device: "NAME (FILE:LINE)"; empty when none is.
  std::string empty_parameter;
  std::vector<ConstraintReport> constraints;  // in declared order (template, then extra)
  uint64_t derived_errors = 0;  // partial configs dropped because a derived value failed
  int emptied_by = -1;          // index of the constraint that left nothing, or -1
  // A derived value of the problem and device alone that cannot be computed
  // (an integer overflow, a division by zero): "NAME = EXPR (FILE:LINE)";
  // it removes every config before any constraint is checked.
  std::string failed_derived;
};

// A config made concrete: what the renderer and the launcher need.
struct Instance {
  Config config;
  // What the renderer sees: problem names, parameters, derived values —
  // without launch-time parameters (`applied: launch`) and the derived values
  // that read them, which only the launch below may use.
  std::vector<std::pair<std::string, Value>> vars;
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
  int64_t dynamic_local_bytes = -1;  // launch dynamic_local_bytes; -1 when the space has none
  int64_t shared_carveout = -1;      // launch shared_carveout; -1 without
  // validation winograd_tile: the m of the Winograd F(m x m, 3 x 3) the
  // kernel computes, validated against that bound; 0 for the direct one.
  int64_t winograd_tile = 0;
  // The kernels launched before the main one (`launch: before:`, those whose
  // `when` holds), in order, and the workspace they share (0: none).
  struct Stage {
    std::string kernel;
    size_t global[3] = {1, 1, 1};
    size_t local[3] = {1, 1, 1};
    bool prepare = false;  // SpaceSpec::StageSpec::prepare
  };
  std::vector<Stage> before;
  int64_t workspace_bytes = 0;
};

class BoundSpace {
 public:
  // Throws Error(kBadArgument) when the template cannot compute the problem
  // on the device's backend (WhyNotApplicable, below).
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
  // unless ignore_soft (template's only); post-compile ones are listed but not enumerated.
  const std::vector<ConstraintSpec>& constraints() const;
  // Parameter names in the order the engine walks them (see the top).
  std::vector<std::string> WalkOrder() const;

  uint64_t RawSize() const;
  // The number of valid configs, with BindOptions::threads threads or the
  // given number (0: as many as pay off, up to one per core); the result
  // does not depend on it.
  uint64_t Count() const;
  uint64_t Count(unsigned threads) const;
  // Visits valid configs in order until visit returns false.
  void ForEach(const std::function<bool(const Config&)>& visit) const;
  // The first `limit` valid configs in order; with threads, the walk is split
  // among them and the result is the same.
  std::vector<Config> Enumerate(size_t limit = SIZE_MAX) const;
  std::vector<Config> Enumerate(size_t limit, unsigned threads) const;
  SpaceReport Explain() const;

  // The position of config in the order of ForEach (0-based), computed by
  // counting subtrees, not by listing. Throws Error(kNotFound) naming the
  // reason when config is not a point of the space.
  uint64_t IndexOf(const Config& config) const;
  // The config at that position; At(IndexOf(c)) == c. Throws
  // Error(kBadArgument) when index >= Count().
  Config At(uint64_t index) const;
  // k distinct valid configs drawn uniformly at random (all of them when
  // k >= Count()), in order of their position; the same seed gives the same
  // sample on every platform. The valid set is never held in memory.
  std::vector<Config> Sample(uint64_t k, uint64_t seed) const;

  // Whether config is a point of the space; when not, why (one line). With
  // hard_only, soft constraints are not checked: the config is correct and
  // runnable, if not one the space would propose (a template's default on a
  // small problem, say).
  bool Check(const Config& config, std::string* why, bool hard_only = false) const;
  // The post-compile (stage: after_compile) constraints in force, evaluated
  // for config with the compiled binary's resources bound (registers, spills,
  // stack_bytes, local_mem_used). When one fails, why says which. Throws
  // Error(kBadArgument) when config does not bind the space's parameters, a
  // derived value cannot be computed, or a constraint needs a resource that
  // is not given — unless skip_missing: then such a constraint is not applied
  // (a backend that does not report the resource).
  bool CheckAfterCompile(const Config& config, const std::map<std::string, int64_t>& resources,
                         std::string* why, bool skip_missing = false) const;
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
// Why the template cannot compute the problem on a device of that backend
// ("has no OpenCL form (it renders for CUDA only)", "does not support dtype
// f32 (its dtypes: f16, bf16)", a layout or op it lacks); "" when it can.
// BoundSpace refuses such a pair with "template NAME ", this reason and
// ", problem KEY";
// a run that tunes every template of a problem's op lists it as not
// applicable instead.
std::string WhyNotApplicable(const SpaceSpec& spec, const Problem& problem, Backend backend);

// One line naming the constraint that left the space empty, e.g.
// 'hard constraint "MWG <= M" (FILE:LINE) removed the last configs', the
// others that removed configs before it with their counts, and, when soft
// ones did, that --ignore-soft drops them.
std::string WhyEmpty(const SpaceReport& report);
}  // namespace beast
