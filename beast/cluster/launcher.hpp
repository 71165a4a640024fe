// Whether this process was started as one of several ranks by an MPI
// launcher (mpirun, or srun with PMIx), read from the environment the
// launcher sets, before MPI is started: a beast built with MPI then runs the
// verb as a rank of the job, one built without refuses in one line (each
// copy would otherwise tune everything on its own).
#pragma once

#include <optional>
#include <string>

namespace beast {

struct LaunchedRanks {
  long ranks = 0;
  std::string variable;  // the environment variable that says so
};

// nullopt when not launched as several ranks. Not SLURM_NTASKS alone, which
// a plain command inside a batch job sees too.
std::optional<LaunchedRanks> LaunchedAsRanks();

// Throws the one line a beast built without MPI gives when launched as ranks.
void RefuseLaunchWithoutMpi(const LaunchedRanks& launched);

}  // namespace beast
