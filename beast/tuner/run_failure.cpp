// Ending a run that failed part way (run_failure.hpp).
#include "beast/tuner/run_failure.hpp"

#include <string>

#include "beast/core/error.hpp"

namespace beast {

void EndFailedRun(results_db::Store& store, int64_t run_id) {
  try {
    store.FinishRun(run_id, results_db::RunEnd::kInterrupted);
  } catch (const Error&) {
    // The database may be what failed; the error that stopped the run is the
    // one to report.
  }
  try {
    throw;
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kDatabase) throw;
    throw Error(ErrorCode::kDatabase, std::string(e.what()) +
                                          "; every measurement recorded before it is kept: "
                                          "run the same command again to resume");
  }
}

}  // namespace beast
