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
  // A problem named among the pairs left out (no template computes it, an
  // empty space, another layout: "T on KEY: why", "T takes NCHW, not KEY")
  // was not to be tuned, reached or not. Named exactly: a key followed by
  // ':' or the end (an f32 key is the start of its math=tf32 twin's).
  auto left_out = [&](const std::string& key) {
    for (const auto* list : {&s.not_applicable, &s.empty_spaces, &s.other_layout}) {
      for (const std::string& line : *list) {
        for (size_t at = line.find(key); at != std::string::npos; at = line.find(key, at + 1)) {
          const size_t end = at + key.size();
          if (at > 0 && line[at - 1] == ' ' && (end == line.size() || line[end] == ':'))
            return true;
        }
      }
    }
    return false;
  };
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
      (s.interrupted && !with_pairs.count(key) && !left_out(key) ? t.not_reached : t.no_winner)
          .push_back(key);
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
