// One tuning job on several devices at once (`beast tune --device A --device
// B ...`): one tuning process per device, each with its own device worker,
// all writing the same database (WAL; tested with concurrent writers).
// Devices that are the same device as far as results go (same backend, name
// and driver: several GPUs of one model in a node) share the work — each
// measures every k-th selected config of the run (TuneOptions::shard_*) —
// while different devices each tune everything for themselves. When every
// process is done, each group's first device runs the job once more in this
// process: it finds everything measured, so it only measures the vendor
// baselines, confirms each pair's winner side by side, and gives the group's
// summary; a device whose process failed leaves its share to that run.
#pragma once

#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/tuner/tuner.hpp"

namespace beast {

struct MultiDeviceSummary {
  // One per group of identical devices, in the order their first device was
  // named; empty when the run was interrupted before the final runs.
  std::vector<TuneSummary> groups;
  bool interrupted = false;
  // A device's process could not make a problem's inputs and reference
  // (exit 4; it printed why): no final run redoes it, and there is no summary.
  bool setup_failed = false;
};

// `options` names no device (options.device is ignored); `devices` are the
// selectors, two or more. `tune_args` is the command line of `beast tune`
// without its --device, --json and --quiet options: each device's process
// runs `beast tune` with them and its own device, shard and progress label.
// Throws beast::Error, before anything runs, for a device that is not there
// or named twice, a compile-only cuda:sm_XX among others, or input that any
// of the devices rejects.
MultiDeviceSummary TuneOnDevices(const TuneOptions& options,
                                 const std::vector<DeviceSelector>& devices,
                                 const std::vector<std::string>& tune_args);

// What makes two devices one as far as results go: backend, name and
// driver. Devices with the same identity share a run's configs.
std::string ResultIdentity(const DeviceInfo& device);

// A device's process (`beast tune ... --share-fd N`): writes its summary's
// share of the run on descriptor N and closes it.
void WriteShare(int fd, const TuneSummary& summary);

}  // namespace beast
