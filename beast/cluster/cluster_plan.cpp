// The plan as the processes of a run under mpirun compare it (cluster_plan.hpp).
#include "beast/cluster/cluster_plan.hpp"

namespace beast {

std::string PlanText(const std::vector<PlannedPair>& pairs) {
  std::string text;
  for (const PlannedPair& p : pairs) {
    text += p.spec->name + " " + p.spec->hash + " " + p.problem->Key() + " " +
            std::to_string(p.budget) + " " + p.strategy + "\n";
  }
  return text;
}

}  // namespace beast
