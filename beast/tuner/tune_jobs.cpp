// The jobs of a tuning run and their cost (tune_jobs.hpp).
#include "beast/tuner/tune_jobs.hpp"

#include <set>
#include <string>

namespace beast {

JobPlan PlanJobs(results_db::Store& store, int64_t device_id,
                 const std::vector<PlannedPair>& pairs) {
  JobPlan plan;
  for (const PlannedPair& pair : pairs) {
    const Problem& problem = *pair.problem;
    int64_t problem_id = store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
    int64_t template_id =
        store.UpsertTemplate(pair.spec->name, pair.spec->hash, pair.spec->source_rel);
    std::set<std::string> measured = store.MeasuredConfigKeys(device_id, problem_id, template_id);
    const size_t first = plan.jobs.size();
    for (const Config& config : pair.configs) {
      if (!measured.count(config.Key()))
        plan.jobs.push_back({pair.spec, pair.problem, pair.space.get(), &config});
    }
    plan.spans[&pair] = {first, plan.jobs.size() - first};
  }
  return plan;
}

void AccountSupply(const ProgramSupply::Supplied& supplied, const Outcome& outcome,
                   TuneSummary* summary) {
  const bool pool_built = supplied.built == CompilePool::Built::kCompiled ||
                          supplied.built == CompilePool::Built::kNotStored;
  if (pool_built) summary->compile_seconds += supplied.pool_compile_ms / 1000.0;
  // The device worker reports a compile time for what it built or loaded;
  // one it loaded is the time of the build that made the cache entry.
  const bool worker_built = outcome.compile_ms.has_value() && !outcome.from_cache;
  if (worker_built) summary->compile_seconds += *outcome.compile_ms / 1000.0;
  if (pool_built || worker_built) {
    ++summary->programs_compiled;
  } else if (outcome.from_cache) {
    ++summary->programs_from_cache;
  }
}

}  // namespace beast
