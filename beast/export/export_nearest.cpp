// Nearest-tuned choices for untuned shapes (export_nearest.hpp).
#include "beast/export/export_nearest.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/export/export_plan.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/space_spec.hpp"

namespace beast {
namespace {

// The sizes ShapeDistance compares, already offset where a size may be 0.
std::vector<double> LogSizes(const Problem& p) {
  std::vector<double> v;
  if (p.op() == OpKind::kGemm) {
    const GemmShape& g = p.gemm();
    v = {double(g.m), double(g.n), double(g.k)};
  } else {
    const Conv2dShape& c = p.conv();
    v = {double(c.n),         double(c.c),          double(c.h),          double(c.w),
         double(c.k),         double(c.r),          double(c.s),          double(c.stride_h),
         double(c.stride_w),  double(c.dilation_h), double(c.dilation_w), double(c.groups),
         double(c.pad_h + 1), double(c.pad_w + 1),  c.bias ? 2.0 : 1.0};
  }
  for (double& x : v) x = std::log2(x);
  return v;
}

// Tuned problems of one device: key -> its winners, fastest first.
using Tuned = std::map<std::string, std::vector<const results_db::WinnerRow*>>;

class Chooser {
 public:
  explicit Chooser(const std::string& templates_dir) : templates_dir_(templates_dir) {}

  // Appends to plan the choice (or the generic line) for `want` on the
  // device whose tuned problems are `tuned`.
  void Choose(const Problem& want, const Tuned& tuned, const std::string& device,
              NearestPlan* plan) {
    std::vector<std::pair<double, const std::vector<const results_db::WinnerRow*>*>> near;
    for (const auto& [key, rows] : tuned) {
      Problem p = Problem::Parse(key);
      if (SameKind(want, p)) near.push_back({ShapeDistance(want, p), &rows});
    }
    // Ties keep the map's order: by key.
    std::stable_sort(near.begin(), near.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::string where = want.Key() + " on " + device;
    if (near.empty()) {
      plan->generic.push_back(where + ": no tuned problem of the same kind (op, layout, " +
                              "transpositions); the generic kernel runs");
      return;
    }
    // First a winner the new shape's space would itself propose (its soft
    // constraints hold too: no tile far larger than the shape, no split of K
    // a small layer needed and a large one does not), then any that runs.
    size_t tried = 0;
    std::string first_why;
    for (const bool hard_only : {false, true}) {
      for (const auto& [distance, rows] : near) {
        for (const results_db::WinnerRow* row : *rows) {
          std::string why;
          if (Fits(*row, want, hard_only, &why)) {
            plan->choices.push_back(NearestChoice{*row, want, distance});
            return;
          }
          if (!hard_only) continue;
          ++tried;
          if (first_why.empty()) {
            first_why =
                row->template_name + " " + row->config_key + " of " + row->problem_key + ": " + why;
          }
        }
      }
    }
    plan->generic.push_back(where + ": none of the " + std::to_string(tried) + " winners of " +
                            std::to_string(near.size()) +
                            " tuned problems of the same kind fits (" + first_why +
                            "); the generic kernel runs");
  }

 private:
  // Whether row's config passes its template's hard constraints for want
  // (and, unless hard_only, its soft ones).
  bool Fits(const results_db::WinnerRow& row, const Problem& want, bool hard_only,
            std::string* why) {
    const SpaceSpec* spec = Spec(row.template_name);
    if (!spec) {
      *why = "the template is gone";
      return false;
    }
    if (spec->hash != row.template_hash) {
      *why = "the template changed since it was tuned";
      return false;
    }
    try {
      BindOptions bind;
      bind.ignore_soft = hard_only;
      BoundSpace space(*spec, want, BindingDevice(row), bind);
      return space.Check(Config::ParseKey(row.config_key), why, hard_only);
    } catch (const Error& e) {
      *why = e.what();  // e.g. a layout the template does not support
      return false;
    }
  }

  const SpaceSpec* Spec(const std::string& name) {
    auto it = specs_.find(name);
    if (it == specs_.end()) {
      std::unique_ptr<SpaceSpec> spec;
      try {
        spec = std::make_unique<SpaceSpec>(SpaceSpec::Load(templates_dir_, name));
      } catch (const Error&) {
      }
      it = specs_.emplace(name, std::move(spec)).first;
    }
    return it->second.get();
  }

  std::string templates_dir_;
  std::map<std::string, std::unique_ptr<SpaceSpec>> specs_;
};

}  // namespace

double ShapeDistance(const Problem& a, const Problem& b) {
  std::vector<double> x = LogSizes(a), y = LogSizes(b);
  BEAST_CHECK(x.size() == y.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += (x[i] - y[i]) * (x[i] - y[i]);
  return std::sqrt(sum);
}

bool SameKind(const Problem& a, const Problem& b) {
  if (a.op() != b.op() || a.dtype() != b.dtype()) return false;
  if (a.op() == OpKind::kConv2d) return a.conv().layout == b.conv().layout;
  const GemmShape &x = a.gemm(), &y = b.gemm();
  return x.trans_a == y.trans_a && x.trans_b == y.trans_b && x.col_major == y.col_major;
}

NearestPlan PlanNearest(const std::vector<results_db::WinnerRow>& winners,
                        const std::vector<Problem>& requested, const std::string& templates_dir) {
  std::vector<int64_t> devices;  // in the order of winners
  std::map<int64_t, Tuned> tuned;
  std::map<int64_t, std::string> names;
  for (const auto& row : winners) {
    std::string why_not;
    if (!Exportable(row, &why_not)) continue;
    if (!tuned.count(row.device_id)) devices.push_back(row.device_id);
    tuned[row.device_id][row.problem_key].push_back(&row);
    names[row.device_id] = row.device_name + " (" + row.driver_version + ")";
  }
  for (auto& [device, problems] : tuned) {
    for (auto& [key, rows] : problems) {
      std::stable_sort(rows.begin(), rows.end(),
                       [](const auto* a, const auto* b) { return a->median_ms < b->median_ms; });
    }
  }
  NearestPlan plan;
  Chooser chooser(templates_dir);
  for (int64_t device : devices) {
    std::set<std::string> seen;
    for (const Problem& want : requested) {
      const std::string key = want.Key();
      if (!seen.insert(key).second || tuned[device].count(key)) continue;  // exact: tier 1
      chooser.Choose(want, tuned[device], names[device], &plan);
    }
  }
  return plan;
}

}  // namespace beast
