// Helpers for space tests: temporary template folders and a brute-force
// reference that walks the whole Cartesian product with Expr::Evaluate.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "beast/bound_space.hpp"
#include "beast/error.hpp"

namespace beast::testing {

// A kernel_templates-like folder in the temp dir, removed at destruction.
class TempTemplates {
 public:
  TempTemplates() {
    dir_ = std::filesystem::temp_directory_path() /
           ("beast_space_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
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

inline DeviceInfo TestDevice() {
  DeviceInfo d;
  d.name = "test device";
  d.limits.max_work_group_size = 4096;
  d.limits.max_work_item_sizes[0] = d.limits.max_work_item_sizes[1] = d.limits.max_work_item_sizes[2] = 4096;
  d.limits.local_mem_bytes = 524288;
  d.limits.compute_units = 2;
  d.limits.warp_size = 8;
  return d;
}

// Brute force: every point of the Cartesian product (value sets evaluated
// with the earlier parameters bound), kept when the first `active`
// constraints (all when -1) hold. Returns the keys of the points kept.
inline std::vector<std::string> BruteForce(const SpaceSpec& spec, const Problem& problem, const DeviceInfo& device,
                                           int active = -1) {
  std::map<std::string, Value> fixed;
  for (const auto& [k, v] : problem.Variables()) fixed[k] = Value::Int(v);
  for (const auto& [k, v] : device.Variables()) fixed[k] = Value::Int(v);
  std::map<std::string, Value> bound;
  std::function<bool(const std::string&, Value*)> lookup = [&](const std::string& n, Value* out) -> bool {
    if (fixed.count(n)) return *out = fixed[n], true;
    if (bound.count(n)) return *out = bound[n], true;
    for (const auto& d : spec.derived) {
      if (d.name == n) return *out = d.expr.Evaluate(lookup), true;
    }
    return false;
  };
  auto ok = [&](const Expr& e) {
    try {
      return e.Evaluate(lookup).Truthy();
    } catch (const Error&) {
      return false;  // division by zero: the point is invalid
    }
  };
  std::vector<std::string> keys;
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == spec.params.size()) {
      size_t n = active < 0 ? spec.constraints.size() : static_cast<size_t>(active);
      for (const auto& d : spec.derived) {
        Value v;
        try {
          lookup(d.name, &v);
        } catch (const Error&) {
          if (n > 0) return;
        }
      }
      for (size_t c = 0; c < n; ++c) {
        if (!ok(spec.constraints[c].expr)) return;
      }
      std::string key;
      for (const auto& p : spec.params) key += (key.empty() ? "" : ",") + p.name + "=" + bound[p.name].ToString();
      keys.push_back(key);
      return;
    }
    const ParamSpec& p = spec.params[i];
    std::vector<Value> values;
    std::vector<Value> args;
    for (const auto& e : p.exprs) args.push_back(e.Evaluate(lookup));
    if (p.form == ParamSpec::Form::kValues) {
      values = args;
    } else if (p.form == ParamSpec::Form::kRange) {
      int64_t step = args.size() > 2 ? args[2].i : 1;
      for (int64_t v = args[0].i; step > 0 ? v < args[1].i : v > args[1].i; v += step) values.push_back(Value::Int(v));
    } else {
      for (int64_t v = 1; v <= args[1].i; v *= 2) {
        if (v >= args[0].i) values.push_back(Value::Int(v));
      }
    }
    for (const auto& v : values) {
      bound[p.name] = v;
      walk(i + 1);
    }
    bound.erase(p.name);
  };
  walk(0);
  return keys;
}

inline std::vector<std::string> Keys(const std::vector<Config>& configs) {
  std::vector<std::string> keys;
  for (const auto& c : configs) keys.push_back(c.Key());
  return keys;
}

}  // namespace beast::testing
