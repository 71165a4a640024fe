// The live run's measurer (device_measurer.hpp).
#include "beast/tuner/device_measurer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "beast/space/post_compile.hpp"
#include "beast/tuner/pair_best.hpp"
#include "beast/tuner/supplied_measure.hpp"
#include "beast/tuner/tune_confirm.hpp"

namespace beast {
namespace {

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
  std::optional<double> best;
  auto it = best_ms_by_problem_.find(pair.problem->Key());
  if (it != best_ms_by_problem_.end()) best = it->second;
  std::optional<Outcome> outcome =
      MeasureConfig({c_.supply, c_.worker, c_.plan, c_.options.timeout_seconds, c_.summary}, pair,
                    config, best, stop);
  if (outcome && outcome->status == Status::kOk) {
    auto [it2, fresh] = best_ms_by_problem_.emplace(pair.problem->Key(), *outcome->median_ms);
    if (!fresh) it2->second = std::min(it2->second, *outcome->median_ms);
  }
  return outcome;
}

void DeviceMeasurer::EndPair(const PlannedPair& pair, const PairIds& ids,
                             const std::atomic<bool>& stop, PairSummary* ps) {
  Confirm(pair, ids, stop, ps);
  SummarizePairBest(c_.store, c_.device_id, pair, ids, ps);
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
