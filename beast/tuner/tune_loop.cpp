// The pair loop of every tuning run (tune_loop.hpp).
#include "beast/tuner/tune_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <thread>

#include "beast/tuner/budget_split.hpp"
#include "beast/tuner/outcome_record.hpp"
#include "beast/tuner/pair_trajectory.hpp"

namespace beast {
namespace {

// The outcome of `config` as the database keeps it (config_id is the
// caller's to set).
results_db::MeasurementRecord RecordOf(const TuneLoopContext& c, const PlannedPair& pair,
                                       const PairIds& ids, const Config& config,
                                       const Outcome& outcome, const std::string& chosen_by) {
  results_db::MeasurementRecord m;
  m.run_id = c.run_id;
  m.device_id = c.device_id;
  m.problem_id = ids.problem;
  m.is_default = pair.has_default && config.Key() == pair.default_config.Key();
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
  m.strategy = chosen_by;
  m.attempts = outcome.attempts;
  m.prepare_ms = outcome.prepare_ms;
  CopyResources(outcome.resources, &m);
  return m;
}

// --retry-failed: the pair's recorded failures of the chosen statuses are
// measured again, before its search reads the database, so the search
// learns the new outcomes. Identical devices sharing the pair leave this to
// the first share, so no config is measured twice, and retry only what runs
// before the job recorded (retry_before_run).
// Returns the keys of the configs it measured.
std::set<std::string> RemeasureFailures(TuneLoopContext& c, const PlannedPair& pair,
                                        const PairIds& ids, ConfigMeasurer& measurer,
                                        std::chrono::steady_clock::time_point deadline,
                                        const std::atomic<bool>& stop, PairSummary* ps) {
  std::set<std::string> measured;
  if (c.options.retry_failed.empty() || c.options.shard_index != 0) return measured;
  std::vector<results_db::MeasuredOutcome> failed;
  for (results_db::MeasuredOutcome& m :
       c.store.MeasuredOutcomes(c.device_id, ids.problem, ids.template_version))
    if (c.options.retry_failed.count(m.status) &&
        (c.options.retry_before_run <= 0 || m.run_id <= c.options.retry_before_run))
      failed.push_back(std::move(m));
  // Within the pair's time (--time-budget): what is left stays recorded for
  // the next run to retry.
  for (size_t i = 0; i < failed.size() && !stop && std::chrono::steady_clock::now() < deadline;
       ++i) {
    const Config config = Config::ParseKey(failed[i].config_key);
    std::vector<Config> upcoming;
    for (size_t j = i; j < failed.size() && upcoming.size() <= c.lookahead; ++j)
      upcoming.push_back(Config::ParseKey(failed[j].config_key));
    measurer.Upcoming(pair, upcoming);
    std::optional<Outcome> outcome = measurer.Measure(pair, config, stop);
    if (!outcome) break;  // interrupted: the old outcome stands
    results_db::MeasurementRecord m = RecordOf(c, pair, ids, config, *outcome, "");
    c.store.SupersedeMeasurement(failed[i].measurement_id, m);
    measured.insert(failed[i].config_key);  // the key the trajectory reads back
    ++ps->remeasured;
    if (outcome->status == measurer.Success()) ++ps->recovered;
    CountOutcome(c, measurer.Success(), *outcome, ps);
  }
  return measured;
}

// --retry-failed on shared identical devices, in the shards other than 0:
// waits until shard 0 has measured the pair's failures of the job again
// (each then belongs to a run newer than retry_before_run), so that this
// shard's trajectory reads the outcomes shard 0's does. Gives up, going on
// with what the database holds, when `stop` is set or nothing changed for
// as long as a shard waits for another's outcome (shard 0's process may
// have failed: the final run retries what it left), or the pair's time is up.
void AwaitRetriedFailures(TuneLoopContext& c, const PairIds& ids, double wait_seconds,
                          std::chrono::steady_clock::time_point deadline,
                          const std::atomic<bool>& stop) {
  const TuneOptions& o = c.options;
  if (o.retry_failed.empty() || o.shard_index == 0 || o.retry_before_run <= 0) return;
  size_t left = SIZE_MAX;
  auto last_news = std::chrono::steady_clock::now();
  while (!stop && std::chrono::steady_clock::now() < deadline) {
    size_t now_left = 0;
    for (const results_db::MeasuredOutcome& m :
         c.store.MeasuredOutcomes(c.device_id, ids.problem, ids.template_version))
      now_left += o.retry_failed.count(m.status) && m.run_id <= o.retry_before_run;
    if (now_left == 0) return;
    if (now_left != left) {
      left = now_left;
      last_news = std::chrono::steady_clock::now();
    } else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_news).count() >
               wait_seconds) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

PairSummary TunePair(TuneLoopContext& c, const PlannedPair& pair, size_t index, size_t count,
                     std::chrono::steady_clock::time_point deadline, ConfigMeasurer& measurer,
                     const std::atomic<bool>& stop) {
  const SpaceSpec& spec = *pair.spec;
  const Problem& problem = *pair.problem;
  PairSummary ps;
  ps.template_name = spec.name;
  ps.tensor_cores = spec.tensor_cores;
  ps.problem_key = problem.Key();
  ps.space_size = pair.count;
  ps.strategy = pair.strategy;
  ps.selected = pair.budget;
  PairIds ids;
  ids.problem = c.store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
  ids.template_version = c.store.UpsertTemplate(spec.name, spec.hash, spec.source_rel);
  double best_ms = -1, best_gflops = 0;
  measurer.BeginPair(pair, ids, &best_ms, &best_gflops);
  c.progress.StartPair(
      "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + spec.name,
      problem.Key(), problem.Flops(), best_ms, best_gflops);
  const std::set<std::string> retried =
      RemeasureFailures(c, pair, ids, measurer, deadline, stop, &ps);
  // A shard waits for another's config as long as that one may take.
  const double shard_wait_seconds = std::max(600.0, 3 * c.options.timeout_seconds);
  AwaitRetriedFailures(c, ids, shard_wait_seconds, deadline, stop);
  PairTrajectory::Options o;
  o.seed = c.options.seed;
  o.patience = c.options.patience;
  o.transfer = c.options.transfer;
  o.shard_index = c.options.shard_index;
  o.shard_count = c.options.shard_count;
  o.lead = c.search_lead;
  o.shard_wait_seconds = shard_wait_seconds;
  PairTrajectory trajectory(pair, c.store, c.device_id, ids.problem, ids.template_version, o);
  trajectory.MeasuredBefore(retried);
  ps.transferred = trajectory.transferred();
  uint64_t skipped_shown = 0;
  while (std::optional<Config> config = trajectory.Next(deadline, stop)) {
    c.progress.Skipped(trajectory.skipped() - skipped_shown);
    skipped_shown = trajectory.skipped();
    std::vector<Config> upcoming = {*config};
    for (Config& next : trajectory.Ahead(c.lookahead)) upcoming.push_back(std::move(next));
    measurer.Upcoming(pair, upcoming);
    std::optional<Outcome> outcome = measurer.Measure(pair, *config, stop);
    if (!outcome) break;  // interrupted: the config in flight stays unmeasured
    RecordOutcome(c, pair, ids, *config, *outcome, trajectory.ChosenBy(*config));
    trajectory.Measured(*config, outcome->status, outcome->median_ms);
    CountOutcome(c, measurer.Success(), *outcome, &ps);
  }
  c.progress.Skipped(trajectory.skipped() - skipped_shown);
  ps.skipped = trajectory.skipped();
  c.proposal_seconds += trajectory.proposal_seconds();
  measurer.EndPair(pair, ids, stop, &ps);
  return ps;
}

}  // namespace

void RecordOutcome(TuneLoopContext& c, const PlannedPair& pair, const PairIds& ids,
                   const Config& config, const Outcome& outcome, const std::string& chosen_by) {
  results_db::MeasurementRecord m = RecordOf(c, pair, ids, config, outcome, chosen_by);
  results_db::Store::Batch batch(c.store);
  m.config_id =
      c.store.UpsertConfig(ids.template_version, config.Key(), config.Hash(), config.ToJson());
  c.store.RecordMeasurement(m);
  batch.Commit();
}

void CountOutcome(TuneLoopContext& c, Status success, const Outcome& outcome, PairSummary* ps) {
  ++ps->measured;
  if (outcome.attempts > 1) ++ps->retried;
  if (outcome.status != success) {
    ++ps->failed;
    ++ps->failures[outcome.status];
  }
  c.progress.Done(outcome.status, outcome.median_ms, outcome.resources.registers);
}

std::vector<PairSummary> TunePairs(TuneLoopContext& context, const std::vector<PlannedPair>& pairs,
                                   ConfigMeasurer& measurer, const std::atomic<bool>& stop) {
  using Clock = std::chrono::steady_clock;
  std::vector<PairSummary> summaries;
  // What each pair is worth to the job: weight x FLOPs (budget_split.hpp).
  std::vector<double> worth;
  for (const PlannedPair& pair : pairs) {
    const auto w = context.options.weights.find(pair.problem->Key());
    worth.push_back(PairWorth(*pair.problem, w == context.options.weights.end() ? 1 : w->second));
  }
  for (size_t i = 0; i < pairs.size() && !stop; ++i) {
    // The time left is shared by the pairs left, each by its worth.
    Clock::time_point deadline = context.deadline;
    if (deadline != Clock::time_point::max()) {
      const auto left = std::max(Clock::duration::zero(), deadline - Clock::now());
      const double share =
          ShareOfTimeLeft(std::vector<double>(worth.begin() + static_cast<long>(i), worth.end()));
      deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(left * share);
    }
    const Clock::time_point start = Clock::now();
    summaries.push_back(TunePair(context, pairs[i], i, pairs.size(), deadline, measurer, stop));
    summaries.back().seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return summaries;
}

uint64_t SelectedConfigs(const std::vector<PlannedPair>& pairs) {
  uint64_t total = 0;
  for (const PlannedPair& pair : pairs) total += pair.budget;
  return total;
}

}  // namespace beast
