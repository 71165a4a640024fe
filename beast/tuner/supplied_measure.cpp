// Measuring one config with its program from the supply (supplied_measure.hpp).
#include "beast/tuner/supplied_measure.hpp"

#include "beast/space/post_compile.hpp"
#include "beast/tuner/supply_cost.hpp"

namespace beast {
namespace {

// Heads the build log of a measurement whose program came from the cache.
constexpr const char* kFromCacheNote =
    "beast: program loaded from the program cache; compile_ms is the build that made it\n";

// Takes the job rendered, and built when the compile pool got to it, and has
// the worker measure it; nullopt when the run was interrupted first.
std::optional<Outcome> MeasureJob(const SuppliedMeasure& c, const PlannedPair& pair,
                                  const Config& config, size_t job, std::optional<double> best_ms,
                                  const std::atomic<bool>& stop) {
  std::optional<ProgramSupply::Supplied> supplied;
  try {
    supplied = c.supply.Take(job, stop);
  } catch (const harness::RenderInterrupted&) {
    return std::nullopt;  // stopped while rendering: the config stays unmeasured
  }
  if (!supplied) return std::nullopt;
  std::optional<Outcome> outcome;
  if (supplied->instance.failure) {
    outcome = *supplied->instance.failure;
  } else {
    MeasureRequest request = supplied->instance.request;
    request.plan = c.plan;
    TimeLimit limit;
    limit.timeout_seconds = c.timeout_seconds;
    if (best_ms) {
      limit.best_ms = *best_ms;
      request.plan.best_ms = *best_ms;  // clear losers stop early
    }
    limit.launches = 1 + c.plan.warmup + c.plan.max_reps;
    PostCompileCheck check;
    if (pair.post_compile) {
      check = [&](const CompiledResources& r) {
        return PostCompileViolation(*pair.space, config, r);
      };
    }
    ProgramSupply::DeviceBusy busy(c.supply);
    outcome = c.worker.Measure(request, limit, stop, check);
  }
  if (outcome) {
    AccountSupply(*supplied, *outcome, &c.summary);
    c.summary.first_launch_seconds += outcome->first_launch_seconds;
    c.summary.benchmark_seconds += outcome->benchmark_seconds;
  }
  return outcome;
}

}  // namespace

std::optional<Outcome> MeasureConfig(const SuppliedMeasure& c, const PlannedPair& pair,
                                     const Config& config, std::optional<double> best_ms,
                                     const std::atomic<bool>& stop) {
  const size_t job = c.supply.Add({pair.spec, pair.problem, pair.space.get(), config});
  std::optional<Outcome> outcome = MeasureJob(c, pair, config, job, best_ms, stop);
  if (outcome && outcome->from_cache) outcome->build_log = kFromCacheNote + outcome->build_log;
  return outcome;
}

}  // namespace beast
