// The result of a memory bandwidth microbenchmark, whatever the backend
// measured it (opencl/opencl_bandwidth.hpp): STREAM-style copy and triad
// kernels over arrays larger than a last-level cache, the best of a few
// array sizes, and how it was measured.
#pragma once

#include <string>

namespace beast::harness {

struct BandwidthResult {
  bool ok = false;
  double gbs = 0;       // the best kernel's bytes moved / its median time, in GB/s
  std::string variant;  // "triad 128 MiB per array"
  std::string error;    // why no kernel ran, when !ok
  std::string method;   // how it was measured (kOpenClBandwidthMethod)
};

}  // namespace beast::harness
