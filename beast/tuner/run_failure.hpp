// Ending a tuning run that failed part way (a full disk, a lost device, a
// broken renderer): what was recorded stays, the run is marked interrupted,
// and the error goes on to the CLI's one line, saying a rerun resumes when
// the database is what failed.
#pragma once

#include <cstdint>

#include "results_db/store.hpp"

namespace beast {

// Call from a catch block: marks run `run_id` interrupted (ignoring a
// database that cannot take even that) and rethrows the exception being
// handled; a beast::Error of code kDatabase comes back with "every
// measurement recorded before it is kept: run the same command again to
// resume" appended.
[[noreturn]] void EndFailedRun(results_db::Store& store, int64_t run_id);

}  // namespace beast
