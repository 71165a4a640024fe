// What a problem needs in memory, checked before anything is compiled: its
// buffers sized in 64-bit arithmetic with overflow checks, each against the
// device's largest allocation and all together against its global memory,
// and the host memory the CPU reference needs. A problem that cannot fit is
// refused in one line naming the buffer, its size and the limit, instead of
// ending as a crash or a timeout recorded against every config.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/problem/problem.hpp"

namespace beast {

struct ProblemBuffer {
  std::string name;  // "x (input)", "w (filter)", "A", ...
  int64_t bytes = 0;
};

// The buffers a kernel of `problem` reads and writes. Throws
// Error(kBadArgument) naming the buffer whose size does not fit in 63 bits.
std::vector<ProblemBuffer> ProblemBuffers(const Problem& problem);

// Bytes a kernel of `problem` must move at least: each buffer once (the
// memory side of a roofline).
int64_t ReferenceBytesMoved(const Problem& problem);

// Host bytes the CPU reference of `problem` takes (inputs, reference output
// and its error-bound scale; worker/problem_data.hpp).
int64_t ReferenceHostBytes(const Problem& problem);

// Throws Error(kBadArgument) when a buffer exceeds the device's largest
// allocation, the buffers its global memory, or the reference the host's
// physical memory; limits of 0 (unknown) are not checked.
void CheckProblemFits(const Problem& problem, const DeviceInfo& device, int64_t host_memory_bytes);

// This machine's physical memory in bytes (0 when unknown).
int64_t HostMemoryBytes();

// "6.4 GB", "512 MB", "3 KB": sizes in a message.
std::string ReadableBytes(int64_t bytes);

}  // namespace beast
