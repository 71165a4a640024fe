// A launch geometry on the wire (launch_wire.hpp).
#include "beast/worker/launch_wire.hpp"

#include <string>

#include "beast/core/error.hpp"

namespace beast {

void WriteGeometry(WireWriter& w, const harness::LaunchGeometry& geometry) {
  w.I64(geometry.dims);
  for (int d = 0; d < 3; ++d) {
    w.I64(static_cast<int64_t>(geometry.global[d]));
    w.I64(static_cast<int64_t>(geometry.local[d]));
  }
  w.I64(geometry.dynamic_local_bytes);
  w.I64(geometry.shared_carveout);
}

harness::LaunchGeometry ReadGeometry(WireReader& r) {
  harness::LaunchGeometry geometry;
  geometry.dims = static_cast<int>(r.I64());
  for (int d = 0; d < 3; ++d) {
    geometry.global[d] = static_cast<size_t>(r.I64());
    geometry.local[d] = static_cast<size_t>(r.I64());
  }
  geometry.dynamic_local_bytes = r.I64();
  geometry.shared_carveout = static_cast<int>(r.I64());
  return geometry;
}

void WriteSequence(WireWriter& w, const harness::LaunchSequence& sequence) {
  w.I64(static_cast<int64_t>(sequence.before.size()));
  for (const harness::StageLaunch& stage : sequence.before) {
    w.Str(stage.kernel);
    WriteGeometry(w, stage.geometry);
    w.I64(stage.prepare ? 1 : 0);
  }
  w.I64(sequence.workspace_bytes);
}

harness::LaunchSequence ReadSequence(WireReader& r) {
  harness::LaunchSequence sequence;
  const int64_t n = r.I64();
  if (n < 0 || n > 16)
    throw Error(ErrorCode::kInternal,
                "worker protocol: a launch sequence of " + std::to_string(n) + " stages");
  for (int64_t i = 0; i < n; ++i) {
    harness::StageLaunch stage;
    stage.kernel = r.Str();
    stage.geometry = ReadGeometry(r);
    stage.prepare = r.I64() != 0;
    sequence.before.push_back(std::move(stage));
  }
  sequence.workspace_bytes = r.I64();
  return sequence;
}

}  // namespace beast
