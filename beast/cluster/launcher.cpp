// Launched as MPI ranks? (launcher.hpp)
#include "beast/cluster/launcher.hpp"

#include <cstdlib>

#include "beast/core/error.hpp"

namespace beast {

std::optional<LaunchedRanks> LaunchedAsRanks() {
  // Open MPI's mpirun, then the PMI launchers' (MPICH, srun --mpi=pmi2).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value && std::atol(value) > 1) return LaunchedRanks{std::atol(value), name};
  }
  // srun --mpi=pmix: a PMIx rank in a job step of several tasks.
  const char* step_tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  if (std::getenv("PMIX_RANK") && step_tasks && std::atol(step_tasks) > 1)
    return LaunchedRanks{std::atol(step_tasks), "SLURM_STEP_NUM_TASKS"};
  return std::nullopt;
}

void RefuseLaunchWithoutMpi(const LaunchedRanks& launched) {
  throw Error(ErrorCode::kEnvironment,
              "started as " + std::to_string(launched.ranks) + " ranks (" + launched.variable +
                  "), but this beast was built without MPI (BEAST_WITH_MPI): run one beast tune "
                  "with --device given once per device instead, or rebuild with Open MPI");
}

}  // namespace beast
