// The device worker's entry point: the process that opens one device and
// measures what the tuner sends it (worker_main.cpp).
#pragma once

#include <string>

#include "beast/problem/device.hpp"

namespace beast {

// The device worker process (the hidden `beast worker` verb): opens device
// <device_index> of `backend`, then serves measurement requests on socket
// `fd` until the tuner closes it (protocol: worker_protocol.hpp),
// building programs through the program cache in `cache_dir` unless it is
// empty. Returns the process exit code.
int RunDeviceWorker(Backend backend, int device_index, int fd, const std::string& cache_dir = "");

}  // namespace beast
