// The tuning summary beast tune prints (FormatTuneSummary, declared in
// beast/tuner.hpp) and its lines about where programs came from (compiled now,
// the program cache, the compile pool) and about each pair's confirmation.
#pragma once

#include <string>

#include "beast/tuner/tuner.hpp"

namespace beast {

// "      confirmed: fastest of the top 3 re-measured side by side, 1.2345 ms
// (this run)" and, when the lowest median alone picks another config, a line
// naming it; "" when no confirmation stands.
std::string ConfirmationLines(const PairSummary& pair);

// "programs: 12 compiled now, 40 from the cache DIR; compile pool: 2 workers
// (stopped while kernels run), the device waited 3.1 s for it", and a line
// on why the pool's workers did not start, if they did not.
std::string ProgramsLine(const TuneSummary& summary);

// The table `beast tune` prints after a compile-only run: per pair the
// configs compiled, failed by status and the range of registers.
std::string FormatCompileOnlySummary(const TuneSummary& summary);

}  // namespace beast
