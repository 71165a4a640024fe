// A kernel launch, whatever the backend: how it is launched — the NDRange
// (OpenCL) or grid x block (CUDA) in work-items, and the settings applied at
// launch rather than compiled in (dynamic local memory, CUDA's shared-memory
// carveout), so configs differing only in them share one program — and what
// came of it: the kernel's device time, or why it failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/measure/timing.hpp"

namespace beast::harness {

// Global and local sizes per dimension, dims in 1..3; a CUDA grid is
// global / local blocks of local threads. A local size of all zeros lets the
// OpenCL runtime choose the work-group size.
struct LaunchGeometry {
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {0, 0, 0};
  int dims = 1;
  // Local / shared memory sized at launch: -1 when the kernel takes none;
  // else its bytes (OpenCL: one __local argument after the others, given at
  // least 4 bytes; CUDA: dynamic shared memory, opted in beyond 48 KiB).
  int64_t dynamic_local_bytes = -1;
  // CUDA's preferred shared-memory share of the L1/shared array in percent;
  // -1 leaves the driver's choice. OpenCL has no such switch.
  int shared_carveout = -1;
};

// The launches a config makes before its main kernel, in order, from the
// same program, and the device workspace they share (a multi-stage config:
// Winograd's transforms as launches of their own). One measurement times
// the whole sequence. Every kernel of the sequence takes the contract's
// buffers and, when workspace_bytes > 0, the workspace after them. Prepare
// stages (first in the list) depend on the weights alone and fill part of
// the workspace: they run once before the timed launches, not in each.
struct StageLaunch {
  std::string kernel;
  LaunchGeometry geometry;
  bool prepare = false;
};
struct LaunchSequence {
  std::vector<StageLaunch> before;
  int64_t workspace_bytes = 0;
  bool empty() const { return before.empty() && workspace_bytes == 0; }
};

enum class LaunchStatus { kOk, kRuntimeError };

struct LaunchResult {
  LaunchStatus status = LaunchStatus::kRuntimeError;
  std::string message;   // why it failed; empty when ok
  double kernel_ms = 0;  // the kernel's device time (profiling events), when ok
  bool ok() const { return status == LaunchStatus::kOk; }
};

// "global 64x8, local 16x4" (the dims in use) for messages.
std::string GeometryText(const LaunchGeometry& geometry);

// Benchmark (timing.hpp) over a launch's device times: the timed samples;
// when a launch fails the loop stops and *failure (not null) says why, else
// it is cleared.
std::vector<double> BenchmarkLaunches(const std::function<LaunchResult()>& launch,
                                      const BenchmarkPlan& plan, std::string* failure);

}  // namespace beast::harness
