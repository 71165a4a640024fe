// The gate of CUDA timings: a kernel that keeps the stream busy for a fixed
// time before the start event of a timed call is recorded, so that the host
// has enqueued the whole call (a launch, or a library's several launches and
// its host-side set-up) by the time the GPU reaches the start event. Without
// it the GPU idles between the start event and the call's first kernel for as
// long as the host takes to enqueue it, and that wait is counted — more for
// cuDNN, whose set-up is heavier, than for one kernel launch.
#pragma once

#include <string>

namespace beast::harness {

// How long the gate keeps the stream busy: longer than any call takes to
// enqueue.
inline constexpr unsigned long long kCudaGateNanoseconds = 100000;

// CUDA C of the gate kernel beast_gate(unsigned long long ns): one thread
// that spins on the GPU's global timer for ns nanoseconds.
std::string CudaGateKernelSource();

}  // namespace beast::harness
