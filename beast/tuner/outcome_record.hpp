// What a measurement record keeps of a config's outcome: here, the compiled
// resources, which every measurement stores with its status.
#pragma once

#include "beast/space/compiled_resources.hpp"
#include "results_db/records.hpp"

namespace beast {

inline void CopyResources(const CompiledResources& r, results_db::MeasurementRecord* m) {
  m->registers = r.registers;
  m->spill_bytes = r.spill_bytes;
  m->stack_bytes = r.stack_bytes;
  m->shared_bytes = r.shared_bytes;
}

}  // namespace beast
