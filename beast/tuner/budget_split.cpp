// The time budget's split over pairs (budget_split.hpp).
#include "beast/tuner/budget_split.hpp"

#include <algorithm>
#include <numeric>

namespace beast {

double ShareOfTimeLeft(const std::vector<double>& worth_left) {
  if (worth_left.empty()) return 0;
  const double total = std::accumulate(worth_left.begin(), worth_left.end(), 0.0);
  const double n = static_cast<double>(worth_left.size());
  const double floor = 0.25 / n;
  if (!(total > 0)) return 1.0 / n;
  // At most what leaves each pair after it its own floor.
  return std::clamp(worth_left.front() / total, floor, 1.0 - floor * (n - 1));
}

double PairWorth(const Problem& problem, int64_t weight) {
  return static_cast<double>(std::max<int64_t>(weight, 1)) * problem.Flops();
}

}  // namespace beast
