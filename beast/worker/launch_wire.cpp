// A launch geometry on the wire (launch_wire.hpp).
#include "beast/worker/launch_wire.hpp"

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

}  // namespace beast
