// What one device's process of a multi-device run (multi_device_tune.hpp)
// reports back to the run: per pair how many configs it measured and how
// they failed, and the time it spent compiling and timing, as one frame of
// worker_wire.hpp on a pipe. The run adds the shares into each group's
// summary, so the table counts every config measured on every device.
#pragma once

#include <string>

#include "beast/tuner/tuner.hpp"

namespace beast {

std::string EncodeShare(const TuneSummary& summary);
// Throws Error(kInternal) for a payload of another shape.
TuneSummary DecodeShare(const std::string& payload);

// Adds `share` (a device's process, whose pairs are the group's in the same
// order) into `group`: its configs were measured, not skipped, by the group.
void AddShare(const TuneSummary& share, TuneSummary* group);

}  // namespace beast
