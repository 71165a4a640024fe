// A compile worker's entry point: the process of the compile pool that builds
// programs into the cache ahead of the device (compile_worker_main.cpp).
#pragma once

#include <string>

#include "beast/problem/device.hpp"

namespace beast {

// A compile worker of the tuner's compile pool (`beast worker --compile`):
// builds the instances it is sent on socket `fd` into the program cache in
// `cache_dir` (protocol: compile_protocol.hpp) — on OpenCL with
// the compiler of opencl:<device_index>, which it opens; on CUDA with NVRTC
// for `arch`, opening no device. Returns the process exit code.
int RunCompileWorker(Backend backend, int device_index, int fd, const std::string& cache_dir,
                     const std::string& arch = "");

}  // namespace beast
