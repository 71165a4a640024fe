// The live run's measurer (device_measurer.hpp).
#include "beast/tuner/device_measurer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "beast/space/post_compile.hpp"
#include "beast/tuner/tune_confirm.hpp"

namespace beast {
namespace {

// Heads the build log of a measurement whose program came from the cache.
constexpr const char* kFromCacheNote =
    "beast: program loaded from the program cache; compile_ms is the build that made it\n";

// The pair's best ok config in the database, of this template version.
std::optional<results_db::ResultRow> BestOfPair(results_db::Store& store, int64_t device_id,
                                                const PlannedPair& pair) {
  results_db::QueryFilter filter;
  filter.problem_key = pair.problem->Key();
  filter.template_name = pair.spec->name;
  filter.device_id = device_id;
  filter.best_only = true;
  for (auto& row : store.Query(filter)) {
    if (row.template_hash == pair.spec->hash) return row;
  }
  return std::nullopt;
}

// The pair's ok config of lowest median (first recorded on a tie), of this
// template version, whatever a confirmation says; "" when none.
std::string UnconfirmedBest(results_db::Store& store, int64_t device_id, const PlannedPair& pair) {
  results_db::QueryFilter filter;
  filter.problem_key = pair.problem->Key();
  filter.template_name = pair.spec->name;
  filter.device_id = device_id;
  filter.status = Status::kOk;
  for (auto& row : store.Query(filter)) {  // by median
    if (row.template_hash == pair.spec->hash && row.median_ms) return row.config_key;
  }
  return "";
}

// The best ok median of the problem on the device, any template.
std::optional<double> BestOfProblem(results_db::Store& store, int64_t device_id,
                                    const Problem& problem) {
  results_db::QueryFilter filter;
  filter.problem_key = problem.Key();
  filter.device_id = device_id;
  filter.best_only = true;
  std::optional<double> best;
  for (const auto& row : store.Query(filter)) {
    if (row.median_ms && (!best || *row.median_ms < *best)) best = row.median_ms;
  }
  return best;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

void DeviceMeasurer::BeginPair(const PlannedPair& pair, const PairIds&, double* best_ms,
                               double* best_gflops) {
  if (!pair.has_default && c_.options.progress) {
    std::fprintf(stderr, "%s: the default config does not fit %s (%s); no baseline for speed-ups\n",
                 pair.spec->name.c_str(), pair.problem->Key().c_str(), pair.no_default_why.c_str());
  }
  const std::string problem = pair.problem->Key();
  if (!best_ms_by_problem_.count(problem)) {
    if (auto best = BestOfProblem(c_.store, c_.device_id, *pair.problem))
      best_ms_by_problem_[problem] = *best;
  }
  if (auto row = BestOfPair(c_.store, c_.device_id, pair)) {
    *best_ms = row->median_ms.value_or(-1);
    *best_gflops = row->gflops.value_or(0);
  }
}

void DeviceMeasurer::Upcoming(const PlannedPair& pair, const std::vector<Config>& configs) {
  for (const Config& config : configs)
    c_.supply.Add({pair.spec, pair.problem, pair.space.get(), config});
}

std::optional<Outcome> DeviceMeasurer::Measure(const PlannedPair& pair, const Config& config,
                                               const std::atomic<bool>& stop) {
  const size_t job = c_.supply.Add({pair.spec, pair.problem, pair.space.get(), config});
  std::optional<Outcome> outcome = MeasureJob(pair, config, job, stop);
  if (!outcome) return outcome;
  if (outcome->from_cache) outcome->build_log = kFromCacheNote + outcome->build_log;
  if (outcome->status == Status::kOk) {
    auto [it, fresh] = best_ms_by_problem_.emplace(pair.problem->Key(), *outcome->median_ms);
    if (!fresh) it->second = std::min(it->second, *outcome->median_ms);
  }
  return outcome;
}

// Takes the job rendered, and built when the compile pool got to it, and has
// the worker measure it; nullopt when the run was interrupted first.
std::optional<Outcome> DeviceMeasurer::MeasureJob(const PlannedPair& pair, const Config& config,
                                                  size_t job, const std::atomic<bool>& stop) {
  std::optional<ProgramSupply::Supplied> supplied;
  try {
    supplied = c_.supply.Take(job, stop);
  } catch (const harness::RenderInterrupted&) {
    return std::nullopt;  // stopped while rendering: the config stays unmeasured
  }
  if (!supplied) return std::nullopt;
  std::optional<Outcome> outcome;
  if (supplied->instance.failure) {
    outcome = *supplied->instance.failure;
  } else {
    MeasureRequest request = supplied->instance.request;
    request.plan = c_.plan;
    TimeLimit limit;
    limit.timeout_seconds = c_.options.timeout_seconds;
    auto best = best_ms_by_problem_.find(pair.problem->Key());
    if (best != best_ms_by_problem_.end()) {
      limit.best_ms = best->second;
      request.plan.best_ms = best->second;  // clear losers stop early
    }
    limit.launches = 1 + c_.plan.warmup + c_.plan.max_reps;
    PostCompileCheck check;
    if (pair.post_compile) {
      check = [&](const CompiledResources& r) {
        return PostCompileViolation(*pair.space, config, r);
      };
    }
    ProgramSupply::DeviceBusy busy(c_.supply);
    outcome = c_.worker.Measure(request, limit, stop, check);
  }
  if (outcome) {
    AccountSupply(*supplied, *outcome, &c_.summary);
    c_.summary.first_launch_seconds += outcome->first_launch_seconds;
    c_.summary.benchmark_seconds += outcome->benchmark_seconds;
  }
  return outcome;
}

void DeviceMeasurer::EndPair(const PlannedPair& pair, const PairIds& ids,
                             const std::atomic<bool>& stop, PairSummary* ps) {
  Confirm(pair, ids, stop, ps);
  std::optional<results_db::ResultRow> row = BestOfPair(c_.store, c_.device_id, pair);
  if (!row) return;
  ps->has_best = true;
  ps->best_config = row->config_key;
  ps->best_ms = row->median_ms.value_or(0);
  ps->best_gflops = row->gflops.value_or(0);
  ps->speedup_vs_default = row->speedup_vs_default.value_or(0);
  ps->speedup_from_confirmed = row->speedup_from_confirmed;
  if (row->confirmed_ms) {
    ps->confirmed_ms = *row->confirmed_ms;
    std::vector<results_db::Confirmation> all =
        c_.store.Confirmations(c_.device_id, ids.problem, ids.template_version);
    ps->confirmed_candidates = all.empty() ? 0 : static_cast<int>(all.back().results.size());
    ps->unconfirmed_best = UnconfirmedBest(c_.store, c_.device_id, pair);
    if (ps->unconfirmed_best == ps->best_config) ps->unconfirmed_best.clear();
  }
}

// The top configs re-measured side by side (tune_confirm.hpp).
void DeviceMeasurer::Confirm(const PlannedPair& pair, const PairIds& ids,
                             const std::atomic<bool>& stop, PairSummary* ps) {
  if (c_.options.confirm_top < 2 || stop) return;
  ConfirmContext context{c_.worker,
                         c_.store,
                         c_.renderer,
                         c_.device,
                         c_.device_id,
                         c_.run_id,
                         c_.plan,
                         c_.options.timeout_seconds * c_.options.confirm_top,
                         c_.options.confirm_top,
                         c_.options.progress};
  ProgramSupply::DeviceBusy busy(c_.supply);
  const auto start = std::chrono::steady_clock::now();
  try {
    ps->confirmed_now =
        ConfirmPair(context, pair, ids.problem, ids.template_version, stop) == ConfirmStatus::kDone;
  } catch (const harness::RenderInterrupted&) {
    return;  // stopped while rendering a candidate: no confirmation this run
  }
  if (ps->confirmed_now) c_.summary.confirm_seconds += Seconds(start);
}

}  // namespace beast
