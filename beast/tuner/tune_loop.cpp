// The pair loop of every tuning run (tune_loop.hpp).
#include "beast/tuner/tune_loop.hpp"

#include <set>

#include "beast/tuner/outcome_record.hpp"

namespace beast {
namespace {

// The outcome of `config` as the database keeps it, with its config row, in
// one transaction: a killed run loses nothing recorded.
void RecordOutcome(TuneLoopContext& c, const PlannedPair& pair, const PairIds& ids,
                   const Config& config, const Outcome& outcome) {
  const std::string key = config.Key();
  results_db::MeasurementRecord m;
  m.run_id = c.run_id;
  m.device_id = c.device_id;
  m.problem_id = ids.problem;
  results_db::Store::Batch batch(c.store);
  m.config_id = c.store.UpsertConfig(ids.template_version, key, config.Hash(), config.ToJson());
  m.is_default = pair.has_default && key == pair.default_config.Key();
  m.status = outcome.status;
  m.samples_ms = outcome.samples_ms;
  m.median_ms = outcome.median_ms;
  m.spread = outcome.spread;
  if (outcome.median_ms && *outcome.median_ms > 0)
    m.gflops = pair.problem->Flops() / (*outcome.median_ms * 1e6);
  m.max_error = outcome.max_error;
  m.compile_ms = outcome.compile_ms;
  m.error_text = outcome.error_text;
  m.build_log = outcome.build_log;
  m.compiler = c.compiler;
  m.compiler_version = c.compiler_version;
  CopyResources(outcome.resources, &m);
  c.store.RecordMeasurement(m);
  batch.Commit();
}

PairSummary TunePair(TuneLoopContext& c, const PlannedPair& pair, size_t index, size_t count,
                     ConfigMeasurer& measurer, const std::atomic<bool>& stop) {
  const SpaceSpec& spec = *pair.spec;
  const Problem& problem = *pair.problem;
  PairSummary ps;
  ps.template_name = spec.name;
  ps.problem_key = problem.Key();
  ps.space_size = pair.count;
  ps.selected = pair.configs.size();
  PairIds ids;
  ids.problem = c.store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
  ids.template_version = c.store.UpsertTemplate(spec.name, spec.hash, spec.source_rel);
  // Measured already, by an earlier run or by another one since this run
  // planned its jobs.
  const std::set<std::string> measured =
      c.store.MeasuredConfigKeys(c.device_id, ids.problem, ids.template_version);
  std::vector<const Config*> todo;
  for (const Config& config : pair.configs) {
    if (measured.count(config.Key())) {
      ++ps.skipped;
    } else {
      todo.push_back(&config);
    }
  }
  double best_ms = -1, best_gflops = 0;
  measurer.BeginPair(pair, ids, &best_ms, &best_gflops);
  c.progress.StartPair(
      "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + spec.name,
      problem.Key(), problem.Flops(), best_ms, best_gflops);
  c.progress.Skipped(ps.skipped);
  measurer.Measure(
      pair, todo,
      [&](const Config& config, const Outcome& outcome) {
        RecordOutcome(c, pair, ids, config, outcome);
        ++ps.measured;
        if (outcome.status != measurer.Success()) {
          ++ps.failed;
          ++ps.failures[outcome.status];
        }
        c.progress.Done(outcome.status, outcome.median_ms, outcome.resources.registers);
      },
      stop);
  measurer.EndPair(pair, ids, stop, &ps);
  return ps;
}

}  // namespace

std::vector<PairSummary> TunePairs(TuneLoopContext& context, const std::vector<PlannedPair>& pairs,
                                   ConfigMeasurer& measurer, const std::atomic<bool>& stop) {
  std::vector<PairSummary> summaries;
  for (size_t i = 0; i < pairs.size() && !stop; ++i)
    summaries.push_back(TunePair(context, pairs[i], i, pairs.size(), measurer, stop));
  return summaries;
}

uint64_t SelectedConfigs(const std::vector<PlannedPair>& pairs) {
  uint64_t total = 0;
  for (const PlannedPair& pair : pairs) total += pair.configs.size();
  return total;
}

}  // namespace beast
