// Compile-only tuning for a device that is not present (--device cuda:sm_XX):
// the space is bound with the architecture's spec table, the configs a
// normal run would measure are rendered for CUDA and compiled with NVRTC on
// every core, the post-compile constraints are checked on what ptxas reports
// (registers, spills, stack, shared memory), and each config is recorded
// `compiled`, `compile_error` or `pruned_after_compile` with its resources,
// compile time and NVRTC's version. Nothing runs; a rerun resumes. The pairs
// are tuned by the same loop as a live run (tune_loop.hpp), with NVRTC as
// the measurer.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/tuner/tuner.hpp"

namespace beast {

// `device` comes from the spec table (LoadDeviceSpec); `stop` turning true
// (Ctrl-C) stops handing out configs, records the ones compiling and marks
// the run interrupted. Throws Error(kEnvironment) without NVRTC, before the
// database is touched.
TuneSummary TuneCompileOnly(const TuneOptions& options, const std::vector<SpaceSpec>& specs,
                            const DeviceInfo& device, const std::string& templates_dir,
                            std::chrono::steady_clock::time_point deadline,
                            const std::atomic<bool>& stop);

}  // namespace beast
