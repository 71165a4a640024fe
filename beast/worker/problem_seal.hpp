// ProblemSeal: what a problem's kernels must leave as they found it. A
// worker keeps each problem's inputs and reference for every config it
// measures, so a kernel that writes into an input buffer, or (on a CPU
// device, whose kernels run in the worker's own memory) past its buffers
// into the host's copy of the problem, would make every later config of the
// problem look wrong. After a kernel ran, the worker checks the seal: a
// broken one is that kernel's wrong result, and the problem is made afresh
// for the next config.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "beast/worker/problem_data.hpp"

namespace beast {

struct ProblemSeal {
  uint64_t host = 0;            // the host's inputs and reference (0: not checked)
  std::vector<uint64_t> input;  // each device input's bytes, in kernel-argument order
};

// A 64-bit hash of `bytes` bytes at `data`.
uint64_t HashBytes(const void* data, size_t bytes);

// The seal of `data` as UploadElements put its inputs on a device: the
// inputs (x, w and the bias; A and B) in kernel-argument order; the host
// side only when `check_host` (a CPU device).
ProblemSeal SealOf(const ProblemData& data, bool check_host);

// Reads device input `index` (SealOf's order) into `host`, `bytes` long.
using ReadInput = std::function<void(size_t index, void* host, size_t bytes)>;

// What a kernel broke of the seal, as the end of a wrong result's message
// ("it wrote into its input w"), or "" when all is as sealed.
std::string BrokenSeal(const ProblemData& data, const ProblemSeal& seal, const ReadInput& read);

// BrokenSeal for a problem a worker keeps: a broken problem, or one whose
// inputs cannot be read back (the device failed: the caller finds that out
// on its own), is let go with `drop`, to be made afresh when next used.
std::string CheckSeal(const ProblemData& data, const ProblemSeal& seal, const ReadInput& read,
                      const std::function<void()>& drop);

}  // namespace beast
