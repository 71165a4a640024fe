// What supplying programs cost a run (supply_cost.hpp).
#include "beast/tuner/supply_cost.hpp"

namespace beast {

void AccountSupply(const ProgramSupply::Supplied& supplied, const Outcome& outcome,
                   TuneSummary* summary) {
  const bool pool_built = supplied.built == CompilePool::Built::kCompiled ||
                          supplied.built == CompilePool::Built::kNotStored;
  if (pool_built) summary->compile_seconds += supplied.pool_compile_ms / 1000.0;
  // The device worker reports a compile time for what it built or loaded;
  // one it loaded is the time of the build that made the cache entry.
  const bool worker_built = outcome.compile_ms.has_value() && !outcome.from_cache;
  if (worker_built) summary->compile_seconds += *outcome.compile_ms / 1000.0;
  if (pool_built || worker_built) {
    ++summary->programs_compiled;
  } else if (outcome.from_cache) {
    ++summary->programs_from_cache;
  }
}

}  // namespace beast
