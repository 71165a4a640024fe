// Replaying a strategy against a recorded space (replay.hpp).
#include "beast/search/replay.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "beast/core/error.hpp"
#include "beast/search/pipeline_clock.hpp"
#include "beast/search/search_driver.hpp"

namespace beast {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::unordered_map<std::string, size_t> IndexByKey(const RecordedSpace& recorded) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < recorded.outcomes.size(); ++i)
    index.emplace(recorded.outcomes[i].config.Key(), i);
  return index;
}

}  // namespace

double SpaceOptimumMs(const RecordedSpace& recorded, const SearchSpace& space) {
  const std::unordered_map<std::string, size_t> index = IndexByKey(recorded);
  std::optional<double> best;
  uint64_t missing = 0;
  std::string first_missing;
  for (uint64_t i = 0; i < space.Size(); ++i) {
    const std::string key = space.At(i).Key();
    auto it = index.find(key);
    if (it == index.end()) {
      if (missing++ == 0) first_missing = key;
      continue;
    }
    const Trial& t = recorded.outcomes[it->second];
    if (t.Succeeded() && (!best || *t.ms < *best)) best = *t.ms;
  }
  if (missing > 0) {
    throw Error(ErrorCode::kBadInput,
                recorded.source + " does not record " + std::to_string(missing) + " of the " +
                    std::to_string(space.Size()) +
                    " configs of the space replayed (the first: " + first_missing + ")");
  }
  if (!best) {
    throw Error(ErrorCode::kBadInput,
                recorded.source +
                    ": no config of the space replayed ran successfully: nothing "
                    "to replay");
  }
  return *best;
}

ReplayResult Replay(const RecordedSpace& recorded, const SearchSpace& space,
                    const std::string& strategy, const ReplaySettings& settings) {
  const std::unordered_map<std::string, size_t> index = IndexByKey(recorded);
  const bool timed = settings.workers > 0;
  if (timed && recorded.costs.size() != recorded.outcomes.size()) {
    throw Error(ErrorCode::kBadInput, recorded.source +
                                          " records no compile and benchmark times: a simulated "
                                          "pipeline (--workers) needs a Kernel Tuner cache");
  }
  auto find = [&](const Config& config) {
    auto it = index.find(config.Key());
    if (it == index.end()) {
      throw Error(ErrorCode::kBadInput, recorded.source + " does not record config " +
                                            config.Key() + " of the space replayed");
    }
    return it->second;
  };
  ReplayResult result;
  result.strategy = strategy;
  result.budget = settings.budget;
  result.optimum_ms =
      settings.optimum_ms > 0 ? settings.optimum_ms : SpaceOptimumMs(recorded, space);
  const size_t times = timed ? settings.at_seconds.size() : 0;
  result.mean_fraction_at.assign(times, 0.0);
  result.mean_evaluations_at.assign(times, 0.0);
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> fractions;
  for (size_t r = 0; r < settings.repeats; ++r) {
    std::unique_ptr<Strategy> s = MakeStrategy(strategy, settings.seed + r);
    SearchDriver::Options options;
    options.budget = settings.budget;
    options.lead = settings.lead;
    SearchDriver driver(*s, space, options, settings.transfer);
    ReplayRun run;
    run.seed = settings.seed + r;
    run.fraction_at.assign(times, 0.0);
    run.evaluations_at.assign(times, 0);
    std::optional<PipelineClock> clock;
    if (timed) clock.emplace(settings.workers);
    while (std::optional<Config> next = driver.Next()) {
      const size_t at = find(*next);
      if (clock) {
        // What the driver proposed since the last measurement starts building
        // now, as far as a tuning run tells its pool (TuneLoopContext::lookahead).
        const std::vector<Config> ahead =
            driver.Ahead(std::max<size_t>(8, 2 * static_cast<size_t>(settings.workers)));
        const size_t known = driver.position() + 1 + ahead.size();
        for (size_t p = clock->proposed(); p < known; ++p) {
          const Config& c = p == driver.position() ? *next : ahead[p - driver.position() - 1];
          clock->Proposed(recorded.costs[find(c)].compile_ms / 1000);
        }
      }
      const Trial& t = recorded.outcomes[at];
      if (t.Succeeded() && (run.best_ms == 0 || *t.ms < run.best_ms)) run.best_ms = *t.ms;
      driver.Record(t);
      ++run.evaluations;
      if (clock) {
        // This measurement, and the best so far, count by every time it ends before.
        const double done = clock->Measure(recorded.costs[at].run_ms / 1000);
        for (size_t i = 0; i < times; ++i) {
          if (done > settings.at_seconds[i]) continue;
          run.evaluations_at[i] = run.evaluations;
          run.fraction_at[i] = run.best_ms > 0 ? result.optimum_ms / run.best_ms : 0;
        }
      }
    }
    run.fraction = run.best_ms > 0 ? result.optimum_ms / run.best_ms : 0;
    fractions.push_back(run.fraction);
    for (size_t i = 0; i < times; ++i) {
      result.mean_fraction_at[i] += run.fraction_at[i] / static_cast<double>(settings.repeats);
      result.mean_evaluations_at[i] +=
          static_cast<double>(run.evaluations_at[i]) / static_cast<double>(settings.repeats);
    }
    result.runs.push_back(run);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (double f : fractions) result.mean_fraction += f / static_cast<double>(fractions.size());
  result.median_fraction = Median(fractions);
  return result;
}

}  // namespace beast
