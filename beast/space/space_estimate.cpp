// What the planner knows before walking: each constraint's pass rate and each
// dynamic value set's size, estimated on random points of the raw space drawn
// with a fixed seed, so the walk order is the same on every run.
#include <cstdint>

#include "beast/space/bound_space_impl.hpp"

namespace beast {
namespace {

constexpr int kSamples = 512;

// SplitMix64: small, fast, and the same sequence everywhere.
uint64_t Next(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

void BoundSpace::Impl::Estimate() {
  size_t n = levels.size();
  std::vector<double> size_sum(n, 0), size_seen(n, 0);
  std::vector<double> passed(constraints.size(), 0);
  double points = 0;
  std::vector<Value> base = base_slots;
  for (const auto& d : derived) {
    if (d.params.empty()) d.expr.Eval(base.data(), &base[d.slot]);
  }
  std::vector<Value> slots;
  std::vector<Value> values;
  uint64_t state = 0x5eed;
  for (int s = 0; s < kSamples; ++s) {
    slots = base;
    bool complete = true;
    for (size_t l = 0; l < n && complete; ++l) {
      const Level& level = levels[l];
      const std::vector<Value>* set = &level.values;
      if (!level.is_static) {
        try {
          ValueSet(level, slots.data(), &values);
        } catch (const Error&) {
          values.clear();  // a walk reaching this point reports the error itself
        }
        set = &values;
        size_sum[l] += static_cast<double>(values.size());
        size_seen[l] += 1;
      }
      if (set->empty()) {
        complete = false;
        break;
      }
      slots[level.slot] = (*set)[Next(&state) % set->size()];
      for (int d : level.derived) derived[d].expr.Eval(slots.data(), &slots[derived[d].slot]);
    }
    if (!complete) continue;
    points += 1;
    for (size_t c = 0; c < constraints.size(); ++c) {
      if (IsAfterCompile(c)) continue;
      Value r;
      if (compiled[c].Eval(slots.data(), &r) == EvalStatus::kOk && r.Truthy()) passed[c] += 1;
    }
  }
  pass_rate.assign(constraints.size(), 1.0);
  for (size_t c = 0; c < constraints.size(); ++c) pass_rate[c] = (passed[c] + 0.5) / (points + 1);
  for (size_t l = 0; l < n; ++l) {
    levels[l].mean_size = levels[l].is_static ? static_cast<double>(levels[l].values.size())
                          : size_seen[l] > 0  ? size_sum[l] / size_seen[l]
                                              : 1.0;
  }
}

}  // namespace beast
