// Building CUDA kernels through the program cache: NVRTC's cubin for an
// architecture is stored with its log (whose ptxas lines give the resources)
// under a key of the source, the architecture and NVRTC's version, so the
// compile pool's workers build ahead and the device worker only loads, and a
// repeated run compiles nothing. A source NVRTC rejects is stored too (its
// log), so it is not compiled twice either. Needs no GPU.
#pragma once

#include <string>

#include "harness/cache/program_cache.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast::harness {

// The cache key of `source` compiled by this NVRTC for `arch` ("sm_90").
ProgramKey CudaKeyFor(const std::string& source, const std::string& arch);

struct CudaBuild {
  CudaCompileResult compiled;  // ok, log, cubin, resources; compile_ms of the build that made it
  bool from_cache = false;     // loaded from an entry, not compiled now
  bool stored = false;         // compiled now and written to the cache
};

// The entry for the source when the cache holds one, else NVRTC's build,
// stored. `cache` may be null (no cache). Throws Error(kEnvironment) only
// when this beast has no NVRTC.
CudaBuild BuildCudaThroughCache(const ProgramCache* cache, const std::string& source,
                                const std::string& arch, const std::string& kernel_name);

}  // namespace beast::harness
