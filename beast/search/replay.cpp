// Replaying a strategy against a recorded space (replay.hpp).
#include "beast/search/replay.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "beast/core/error.hpp"
#include "beast/search/search_driver.hpp"

namespace beast {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

ReplayResult Replay(const RecordedSpace& recorded, const SearchSpace& space,
                    const std::string& strategy, size_t budget, uint64_t seed, size_t repeats,
                    size_t lead) {
  std::unordered_map<std::string, const Trial*> outcome;
  for (const Trial& t : recorded.outcomes) outcome.emplace(t.config.Key(), &t);
  ReplayResult result;
  result.strategy = strategy;
  result.budget = budget;
  result.optimum_ms = recorded.OptimumMs();
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> fractions;
  for (size_t r = 0; r < repeats; ++r) {
    std::unique_ptr<Strategy> s = MakeStrategy(strategy, seed + r);
    SearchDriver::Options options;
    options.budget = budget;
    options.lead = lead;
    SearchDriver driver(*s, space, options);
    ReplayRun run;
    run.seed = seed + r;
    while (std::optional<Config> next = driver.Next()) {
      auto it = outcome.find(next->Key());
      if (it == outcome.end()) {
        throw Error(ErrorCode::kBadInput, recorded.source + " does not record config " +
                                              next->Key() + " of the space replayed");
      }
      const Trial& t = *it->second;
      if (t.Succeeded() && (run.best_ms == 0 || *t.ms < run.best_ms)) run.best_ms = *t.ms;
      driver.Record(t);
      ++run.evaluations;
    }
    run.fraction = run.best_ms > 0 ? result.optimum_ms / run.best_ms : 0;
    fractions.push_back(run.fraction);
    result.runs.push_back(run);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (double f : fractions) result.mean_fraction += f / static_cast<double>(fractions.size());
  result.median_fraction = Median(fractions);
  return result;
}

}  // namespace beast
