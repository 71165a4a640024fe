// Planning the pairs of a tuning run (tune_plan.hpp).
#include "beast/tuner/tune_plan.hpp"

#include "beast/core/error.hpp"
#include "beast/search/config_selection.hpp"
#include "beast/space/post_compile.hpp"

namespace beast {

std::vector<PlannedPair> PlanPairs(const std::vector<SpaceSpec>& specs, const TuneOptions& o,
                                   const DeviceInfo& device) {
  std::vector<PlannedPair> pairs;
  // Position of a config over every pair's selection, in order: the shards of
  // a run on several identical devices take every shard_count-th one.
  uint64_t position = 0;
  for (const auto& spec : specs) {
    bool any = false;
    for (const auto& problem : o.problems) {
      if (problem.op() != spec.op) continue;
      if (spec.op == OpKind::kConv2d) {
        bool supported = false;
        for (Layout l : spec.layouts) supported = supported || l == problem.conv().layout;
        if (!supported) continue;
      }
      any = true;
      PlannedPair p;
      p.spec = &spec;
      p.problem = &problem;
      p.space = std::make_unique<BoundSpace>(spec, problem, device, o.bind);
      p.count = p.space->Count();
      if (p.count == 0) {
        throw Error(ErrorCode::kEmptySpace, "the space of " + spec.name + " is empty for " +
                                                problem.Key() + ": " +
                                                WhyEmpty(p.space->Explain()));
      }
      // The default is the baseline of the speed-ups: it needs to be correct
      // (hard constraints), not one the soft constraints would propose.
      p.default_config = p.space->DefaultConfig();
      p.has_default = p.space->Check(p.default_config, &p.no_default_why, /*hard_only=*/true);
      p.configs = SelectConfigs(*p.space, p.has_default ? &p.default_config : nullptr,
                                o.max_configs, o.seed);
      if (o.shard_count > 1) {
        std::vector<Config> mine;
        for (Config& c : p.configs) {
          if (position++ % static_cast<uint64_t>(o.shard_count) ==
              static_cast<uint64_t>(o.shard_index))
            mine.push_back(std::move(c));
        }
        p.configs = std::move(mine);
      }
      p.post_compile = !AppliedPostCompile(*p.space, device.backend).empty();
      pairs.push_back(std::move(p));
    }
    if (!any) {
      throw Error(ErrorCode::kBadArgument,
                  "template " + spec.name + " fits none of the problems given (it is a " +
                      (spec.op == OpKind::kGemm ? "gemm" : "conv2d") + " template)");
    }
  }
  return pairs;
}

std::vector<const BoundSpace*> SpacesOf(const std::vector<PlannedPair>& pairs) {
  std::vector<const BoundSpace*> spaces;
  for (const auto& p : pairs) spaces.push_back(p.space.get());
  return spaces;
}

}  // namespace beast
