// A launch geometry on the wire between the tuner and its workers (device,
// compile and confirmation messages alike), in worker_wire.hpp's format.
#pragma once

#include "beast/worker/worker_wire.hpp"
#include "harness/measure/launch.hpp"

namespace beast {

void WriteGeometry(WireWriter& w, const harness::LaunchGeometry& geometry);
harness::LaunchGeometry ReadGeometry(WireReader& r);
void WriteSequence(WireWriter& w, const harness::LaunchSequence& sequence);
harness::LaunchSequence ReadSequence(WireReader& r);

}  // namespace beast
