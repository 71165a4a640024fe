// CUDA builds through the program cache (cuda_build.hpp).
#include "harness/cuda/cuda_build.hpp"

namespace beast::harness {

ProgramKey CudaKeyFor(const std::string& source, const std::string& arch) {
  std::string options;
  for (const std::string& o : CudaCompileOptions(arch)) options += (options.empty() ? "" : " ") + o;
  return ProgramKey{source, options, "nvrtc " + NvrtcVersion()};
}

CudaBuild BuildCudaThroughCache(const ProgramCache* cache, const std::string& source,
                                const std::string& arch, const std::string& kernel_name) {
  CudaBuild build;
  const ProgramKey key = CudaKeyFor(source, arch);
  if (cache != nullptr) {
    if (std::optional<CachedProgram> entry = cache->Load(key)) {
      build.from_cache = true;
      build.compiled.ok = entry->built;
      build.compiled.log = entry->log;
      build.compiled.compile_ms = entry->compile_ms;
      build.compiled.cubin = entry->binary;
      if (entry->built) build.compiled.resources = ParsePtxasInfo(entry->log, kernel_name);
      return build;
    }
  }
  build.compiled = CompileCuda(source, arch, kernel_name);
  // A build that failed for a reason other than the source (NVRTC out of
  // memory, one compile process per core) is not kept: it may pass next time.
  if (cache != nullptr && (build.compiled.ok || build.compiled.rejected)) {
    CachedProgram entry;
    entry.built = build.compiled.ok;
    entry.binary = build.compiled.cubin;
    entry.log = build.compiled.log;
    entry.compile_ms = build.compiled.compile_ms;
    build.stored = cache->Store(key, entry);
  }
  return build;
}

}  // namespace beast::harness
