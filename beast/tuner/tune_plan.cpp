// Planning the pairs of a tuning run (tune_plan.hpp).
#include "beast/tuner/tune_plan.hpp"

#include <algorithm>

#include "beast/core/error.hpp"
#include "beast/search/strategy.hpp"
#include "beast/space/post_compile.hpp"
#include "beast/tuner/tune_peak.hpp"

namespace beast {
namespace {

// The strategy named, or the default: the model, unless every config will be
// measured and nothing can end the pair early (the order is then moot, and
// the space's own order costs nothing to propose).
std::string StrategyFor(const TuneOptions& o, bool whole_space) {
  if (!o.strategy.empty()) {
    MakeStrategy(o.strategy, o.seed);  // an unknown name is refused here
    return o.strategy;
  }
  const bool may_end_early = o.patience > 0 || o.time_budget_seconds > 0;
  return whole_space && !may_end_early ? "exhaustive" : kDefaultStrategy;
}

}  // namespace

std::vector<PlannedPair> PlanPairs(const std::vector<SpaceSpec>& specs, const TuneOptions& o,
                                   const DeviceInfo& device, std::vector<std::string>* empty,
                                   std::vector<std::string>* other_layout,
                                   std::vector<std::string>* not_applicable) {
  std::vector<PlannedPair> pairs;
  std::vector<std::string> empties;
  for (const auto& spec : specs) {
    bool any = false;
    for (const auto& problem : o.problems) {
      if (problem.op() != spec.op) continue;
      if (spec.op == OpKind::kConv2d) {
        bool supported = false;
        std::string takes;
        for (Layout l : spec.layouts) {
          supported = supported || l == problem.conv().layout;
          takes += (takes.empty() ? "" : " and ") + std::string(LayoutName(l));
        }
        if (!supported) {
          if (other_layout)
            other_layout->push_back(spec.name + " takes " + takes + ", not " + problem.Key());
          continue;
        }
      }
      if (o.templates_by_problem && not_applicable) {
        const std::string why = WhyNotApplicable(spec, problem, device.backend);
        if (!why.empty()) {
          not_applicable->push_back(spec.name + " on " + problem.Key() + ": " + why);
          continue;
        }
      }
      any = true;
      PlannedPair p;
      p.spec = &spec;
      p.problem = &problem;
      p.space = std::make_unique<BoundSpace>(spec, problem, device, o.bind);
      p.count = p.space->Count();
      if (p.count == 0) {
        const std::string why = WhyEmpty(p.space->Explain());
        if (o.templates_by_problem && not_applicable) {
          not_applicable->push_back(spec.name + " on " + problem.Key() + ": " + why);
          continue;
        }
        if (!empty)
          throw Error(ErrorCode::kEmptySpace,
                      "the space of " + spec.name + " is empty for " + problem.Key() + ": " + why);
        empties.push_back(spec.name + " on " + problem.Key() + ": " + why);
        continue;
      }
      // The default is the baseline of the speed-ups: it needs to be correct
      // (hard constraints), not one the soft constraints would propose.
      p.default_config = p.space->DefaultConfig();
      p.has_default = p.space->Check(p.default_config, &p.no_default_why, /*hard_only=*/true);
      // The default is measured first even when the soft constraints leave
      // it out of the space: it is then one config more than the space.
      std::string why_not;
      const uint64_t reachable =
          p.count + (p.has_default && !p.space->Check(p.default_config, &why_not) ? 1 : 0);
      p.budget = o.max_configs == 0 ? reachable : std::min(o.max_configs, reachable);
      p.strategy = StrategyFor(o, p.budget == reachable);
      p.post_compile = !AppliedPostCompile(*p.space, device.backend).empty();
      pairs.push_back(std::move(p));
    }
    if (!any && !o.templates_by_problem) {
      std::string layouts;
      for (Layout l : spec.layouts)
        layouts += (layouts.empty() ? " of layout " : " or ") + std::string(LayoutName(l));
      throw Error(ErrorCode::kBadArgument,
                  "template " + spec.name + " fits none of the problems given (it takes " +
                      (spec.op == OpKind::kGemm ? "gemm problems" : "conv2d problems" + layouts) +
                      ")");
    }
  }
  if (pairs.empty() && o.templates_by_problem) {
    throw Error(ErrorCode::kEmptySpace,
                "no template computes the problems given: " +
                    (not_applicable && !not_applicable->empty() ? not_applicable->front()
                                                                : std::string("none takes them")));
  }
  if (pairs.empty() && !empties.empty()) {
    throw Error(
        ErrorCode::kEmptySpace,
        "every space is empty, nothing to tune: " + empties.front() +
            (empties.size() > 1 ? " (and " + std::to_string(empties.size() - 1) + " more pairs)"
                                : ""));
  }
  if (empty) *empty = std::move(empties);
  return pairs;
}

std::vector<const BoundSpace*> SpacesOf(const std::vector<PlannedPair>& pairs) {
  std::vector<const BoundSpace*> spaces;
  for (const auto& p : pairs) spaces.push_back(p.space.get());
  return spaces;
}

harness::BenchmarkPlan BenchmarkPlanOf(const TuneOptions& o) {
  harness::BenchmarkPlan plan;
  plan.warmup = o.warmup;
  plan.min_reps = o.min_reps;
  plan.max_reps = o.max_reps;
  plan.max_seconds = o.max_seconds_per_config;
  plan.flush_cache = o.flush_cache;
  return plan;
}

PeakRequest PeakRequestOf(const TuneOptions& o, const std::vector<PlannedPair>& pairs) {
  PeakRequest request;
  request.plan = BenchmarkPlanOf(o);
  for (const Problem& problem : o.problems)
    request.fp64 = request.fp64 || problem.dtype() == DType::kF64;
  for (const PlannedPair& pair : pairs) {
    // The mma input type the tensor-core template computes the problem with.
    const int input = pair.spec->tensor_cores ? TensorInputOf(*pair.problem) : -1;
    if (input >= 0) request.tensor_inputs |= 1 << input;
  }
  return request;
}

}  // namespace beast
