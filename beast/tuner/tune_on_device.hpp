// A tuning run on a live device: the device worker is started (the last
// thing that can fail for the environment, before the database is touched),
// the device's peak FLOP/s is measured and recorded with it, the vendor
// baselines are measured once per problem, and then the pairs are tuned by
// the shared loop (tune_loop.hpp) with the device measurer.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/tuner/tuner.hpp"

namespace beast {

TuneSummary TuneOnDevice(const TuneOptions& options, const std::vector<SpaceSpec>& specs,
                         const DeviceInfo& device, const std::string& templates_dir,
                         std::chrono::steady_clock::time_point deadline,
                         const std::atomic<bool>& stop);

}  // namespace beast
