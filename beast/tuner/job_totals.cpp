// A batch job's totals (JobTotalsOf, tuner.hpp): the weighted sums of the
// best and the library's times over the job's problems.
#include <map>
#include <set>
#include <string>

#include "beast/tuner/tuner.hpp"

namespace beast {

JobTotals JobTotalsOf(const TuneSummary& s) {
  struct Best {
    double ms = 0;          // the fastest winner over the problem's templates; 0: none
    double library_ms = 0;  // the library's time; 0: none
  };
  // Every problem of the run, winner or not: the job's (one that no
  // template computes, or whose pairs never started, has no pair) and any
  // other pair's.
  std::map<std::string, Best> by_problem;
  for (const auto& [key, weight] : s.weights) by_problem[key];
  std::set<std::string> with_pairs;
  for (const PairSummary& p : s.pairs) with_pairs.insert(p.problem_key);
  for (const PairSummary& p : s.pairs) {
    Best& b = by_problem[p.problem_key];
    if (p.has_best && p.best_ms > 0 && (b.ms == 0 || p.best_ms < b.ms)) b.ms = p.best_ms;
    if (p.baseline_ms > 0) b.library_ms = p.baseline_ms;
  }
  JobTotals t;
  for (const auto& [key, best] : by_problem) {
    auto it = s.weights.find(key);
    const int64_t weight = it == s.weights.end() ? 1 : it->second;
    ++t.problems;
    t.layers += weight;
    if (best.ms <= 0) {
      // Planned but never started: the run was interrupted first.
      const bool not_reached =
          s.interrupted && s.planned_problems.count(key) && !with_pairs.count(key);
      (not_reached ? t.not_reached : t.no_winner).push_back(key);
      continue;
    }
    t.weighted_best_ms += static_cast<double>(weight) * best.ms;
    if (best.library_ms > 0) {
      t.weighted_library_ms += static_cast<double>(weight) * best.library_ms;
    } else {
      ++t.library_missing;
    }
  }
  return t;
}

}  // namespace beast
