// Helpers for space tests: temporary template folders and a brute-force
// reference that walks the whole Cartesian product evaluating every
// expression as Expr::Evaluate does.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/space/bound_space.hpp"
#include "support/test_dir.hpp"

namespace beast::testing {

// A kernel_templates-like folder in the temp dir, removed at destruction
// (made while a test runs; the counter tells apart several in one test).
class TempTemplates {
 public:
  TempTemplates() {
    dir_ = FreshTestDir("space_test_" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_ / "t");
  }
  ~TempTemplates() { std::filesystem::remove_all(dir_); }
  // Writes t/<name>.space.yaml and an empty t/<name>.cl.j2; returns "t/<name>".
  std::string Add(const std::string& name, const std::string& yaml) {
    std::ofstream(dir_ / "t" / (name + ".space.yaml")) << yaml;
    std::ofstream(dir_ / "t" / (name + ".cl.j2")) << "// test template\n";
    return "t/" + name;
  }
  std::string dir() const { return dir_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
};

// Value sets of every form, a dependent one, derived values, and constraints
// with Python's / // % on negative and float values, chains and a division
// that can be by zero.
inline constexpr char kTrickySpace[] = R"YAML(op: gemm
source: tricky.cl.j2
kernel: k
parameters:
  - {name: A, values: [-3, -1, 0, 2, 5, 7.5], default: 2}
  - {name: B, range: [-2, "M // 100 + 1"], default: 1}
  - {name: C, pow2: [2, 32], default: 4}
  - {name: D, range: [0, "C + 1", 2], default: 0}
derived:
  - {name: E, expr: "A * C - B"}
  - {name: F, expr: "E // 3"}
constraints:
  - expr: "A % 3 != 1"
    kind: hard
  - expr: "-2 < B <= C // 4 < 8"
    kind: hard
  - expr: "E / C >= -1.5"
    kind: soft
  - expr: "F % -4 != -1"
    kind: soft
  - expr: "C % D == 0"
    kind: hard
  - expr: "(A // 2) * 2 != A or B != 0"
    kind: soft
launch:
  global: [1]
  local: [1]
)YAML";

inline DeviceInfo TestDevice() {
  DeviceInfo d;
  d.name = "test device";
  d.limits.max_work_group_size = 4096;
  d.limits.max_work_item_sizes[0] = d.limits.max_work_item_sizes[1] =
      d.limits.max_work_item_sizes[2] = 4096;
  d.limits.local_mem_bytes = 524288;
  d.limits.compute_units = 2;
  d.limits.warp_size = 8;
  return d;
}

// Expr::Evaluate, with each expression compiled once (Evaluate compiles it
// on every call, which dominates a brute force over 10^5 points): the same
// values, the same errors.
class ExprEvaluator {
 public:
  Value operator()(const Expr& e, const std::function<bool(const std::string&, Value*)>& lookup) {
    auto known = compiled_.find(&e);
    if (known == compiled_.end()) {
      const std::vector<std::string>& names = e.Names();
      known =
          compiled_
              .emplace(&e, e.Compile([&](const std::string& n) {
                return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
              }))
              .first;
    }
    const std::vector<std::string>& names = e.Names();
    std::vector<Value> values(names.size());
    for (size_t k = 0; k < names.size(); ++k) {
      if (!lookup(names[k], &values[k]))
        throw Error(ErrorCode::kNotFound,
                    "expression \"" + e.text() + "\": unknown name \"" + names[k] + "\"");
    }
    Value result;
    if (known->second.Eval(values.data(), &result) != EvalStatus::kOk)
      throw Error(ErrorCode::kBadInput, "expression \"" + e.text() + "\": cannot be evaluated");
    return result;
  }

 private:
  std::map<const Expr*, CompiledExpr> compiled_;  // the spec outlives the walk
};

// Brute force: every point of the Cartesian product (value sets evaluated
// with the earlier parameters bound), kept when the first `active`
// constraints (all when -1) hold; a derived value that cannot be computed
// drops the point unless `active` is 0 (the raw size counts every point). Returns the keys of the
// points kept, in declared-order lexicographic order, or, given `order`
// (parameter names, e.g. BoundSpace::WalkOrder()), lexicographic over that
// order (by position in each value set).
inline std::vector<std::string> BruteForceFixed(const SpaceSpec& spec,
                                                const std::map<std::string, Value>& fixed,
                                                int active = -1,
                                                const std::vector<std::string>& order = {}) {
  ExprEvaluator evaluate;
  std::map<std::string, Value> bound;
  // At a point (every parameter bound), each derived value is computed once:
  // the constraints read the same chains of them again and again.
  std::map<std::string, Value> derived_at_point;
  bool at_point = false;
  std::function<bool(const std::string&, Value*)> lookup = [&](const std::string& n,
                                                               Value* out) -> bool {
    if (auto f = fixed.find(n); f != fixed.end()) return *out = f->second, true;
    if (auto b = bound.find(n); b != bound.end()) return *out = b->second, true;
    if (at_point) {
      auto known = derived_at_point.find(n);
      if (known != derived_at_point.end()) return *out = known->second, true;
    }
    for (const auto& d : spec.derived) {
      if (d.name != n) continue;
      *out = evaluate(d.expr, lookup);
      if (at_point) derived_at_point[n] = *out;
      return true;
    }
    return false;
  };
  auto ok = [&](const Expr& e) {
    try {
      return evaluate(e, lookup).Truthy();
    } catch (const Error&) {
      return false;  // division by zero: the point is invalid
    }
  };
  size_t n = active < 0 ? spec.constraints.size() : static_cast<size_t>(active);
  const bool raw = active == 0;
  std::vector<std::pair<std::vector<size_t>, std::string>> points;
  std::vector<size_t> position(spec.params.size());
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == spec.params.size()) {
      at_point = true;
      derived_at_point.clear();
      struct LeavePoint {
        bool* flag;
        ~LeavePoint() { *flag = false; }
      } leave{&at_point};
      for (const auto& d : spec.derived) {
        Value v;
        try {
          lookup(d.name, &v);
        } catch (const Error&) {
          if (!raw) return;
        }
      }
      for (size_t c = 0; c < n; ++c) {
        if (spec.constraints[c].stage == ConstraintStage::kAfterCompile) continue;
        if (!ok(spec.constraints[c].expr)) return;
      }
      std::string key;
      for (const auto& p : spec.params)
        key += (key.empty() ? "" : ",") + p.name + "=" + bound[p.name].ToString();
      points.emplace_back(position, key);
      return;
    }
    const ParamSpec& p = spec.params[i];
    std::vector<Value> values;
    std::vector<Value> args;
    for (const auto& e : p.exprs) args.push_back(evaluate(e, lookup));
    if (p.form == ParamSpec::Form::kValues) {
      values = args;
    } else if (p.form == ParamSpec::Form::kRange) {
      int64_t step = args.size() > 2 ? args[2].i : 1;
      for (int64_t v = args[0].i; step > 0 ? v < args[1].i : v > args[1].i; v += step)
        values.push_back(Value::Int(v));
    } else {
      for (int64_t v = 1; v <= args[1].i; v *= 2) {
        if (v >= args[0].i) values.push_back(Value::Int(v));
      }
    }
    for (size_t k = 0; k < values.size(); ++k) {
      bound[p.name] = values[k];
      position[i] = k;
      walk(i + 1);
    }
    bound.erase(p.name);
  };
  walk(0);
  if (!order.empty()) {
    std::vector<size_t> perm;
    for (const auto& name : order) {
      for (size_t i = 0; i < spec.params.size(); ++i) {
        if (spec.params[i].name == name) perm.push_back(i);
      }
    }
    std::stable_sort(points.begin(), points.end(), [&](const auto& a, const auto& b) {
      for (size_t i : perm) {
        if (a.first[i] != b.first[i]) return a.first[i] < b.first[i];
      }
      return false;
    });
  }
  std::vector<std::string> keys;
  for (auto& p : points) keys.push_back(std::move(p.second));
  return keys;
}

inline std::vector<std::string> BruteForce(const SpaceSpec& spec, const Problem& problem,
                                           const DeviceInfo& device, int active = -1,
                                           const std::vector<std::string>& order = {}) {
  std::map<std::string, Value> fixed;
  for (const auto& [k, v] : problem.Variables()) fixed[k] = Value::Int(v);
  for (const auto& [k, v] : device.Variables()) fixed[k] = Value::Int(v);
  return BruteForceFixed(spec, fixed, active, order);
}

inline std::vector<std::string> Keys(const std::vector<Config>& configs) {
  std::vector<std::string> keys;
  for (const auto& c : configs) keys.push_back(c.Key());
  return keys;
}

}  // namespace beast::testing
