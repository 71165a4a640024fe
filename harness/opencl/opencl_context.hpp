// One OpenCL device opened for work: its context, a profiling in-order queue,
// program builds (a failed build is data: ok=false with the full log) and
// device buffers. No OpenCL header leaks out: handles are opaque.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "beast/problem/device.hpp"

namespace beast::harness {

struct ProgramImpl;  // owns a cl_program (opencl_handles.hpp)
struct BufferImpl;   // owns a cl_mem
class ProgramCache;  // program_cache.hpp

// A built program; null when the build failed.
using OpenClProgram = std::shared_ptr<const ProgramImpl>;

struct OpenClBuildResult {
  bool ok = false;
  std::string log;  // the compiler's full build log (warnings too)
  // Wall clock of create + build from source; for a program from the cache,
  // that of the build which made the entry (the program's compile time,
  // whoever paid it).
  double compile_ms = 0;
  OpenClProgram program;  // set when ok
  // The compiler rejected the source (CL_BUILD_PROGRAM_FAILURE), as opposed
  // to a runtime that failed (no memory, bad options): only this is cached.
  bool rejected = false;
  bool from_cache = false;  // loaded from a ProgramCache entry, not compiled now
  double load_ms = 0;       // when from_cache: wall clock of reading and loading it
};

// A device allocation; copies share it, the last copy releases it.
class OpenClBuffer {
 public:
  OpenClBuffer() = default;
  explicit OpenClBuffer(std::shared_ptr<BufferImpl> impl);
  size_t bytes() const;
  bool valid() const { return impl_ != nullptr; }
  const std::shared_ptr<BufferImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<BufferImpl> impl_;
};

// Build, Allocate, Write and Read may be called from several threads at once
// (OpenCL API calls are thread-safe); transfers and launches share one
// in-order queue, so they run one after another on the device.
class OpenClContext {
 public:
  struct Impl;

  // Opens device opencl:<device_index> as listed by ListOpenClDevices().
  // Throws Error(kNotFound) for an index that is not there, Error(kEnvironment)
  // when the context or queue cannot be created.
  explicit OpenClContext(int device_index);
  ~OpenClContext();
  OpenClContext(const OpenClContext&) = delete;
  OpenClContext& operator=(const OpenClContext&) = delete;

  const beast::DeviceInfo& device() const;

  // Compiles `source` with clBuildProgram `options`. Never throws for a bad
  // source or bad options: that is data (ok=false, log says why). With a
  // program cache set, goes through it (cached_build.hpp).
  OpenClBuildResult Build(const std::string& source, const std::string& options);
  // Compiles from source, never through the cache.
  OpenClBuildResult BuildFromSource(const std::string& source, const std::string& options);
  // Builds from here on go through `cache` (null: none).
  void UseProgramCache(std::shared_ptr<const ProgramCache> cache);

  // Allocates `bytes` (> 0) of device memory. Throws Error(kBadArgument) for
  // 0 bytes, Error(kEnvironment) when the device refuses.
  OpenClBuffer Allocate(size_t bytes);
  // Blocking copies; bytes must fit in the buffer (else Error(kBadArgument)).
  void Write(const OpenClBuffer& buffer, const void* host, size_t bytes);
  void Read(const OpenClBuffer& buffer, void* host, size_t bytes);
  // Sets every byte of the buffer to `value` (e.g. to clear an output).
  void Fill(const OpenClBuffer& buffer, unsigned char value);
  // Enqueues a write over twice the device's global memory cache
  // (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) on the queue, so the next kernel finds
  // none of its data cached (BenchmarkPlan::flush_cache).
  void FlushCache();

  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
  std::shared_ptr<const ProgramCache> cache_;
  OpenClBuffer cache_scratch_;  // FlushCache's, allocated on its first call
  unsigned char cache_value_ = 0;
};

}  // namespace beast::harness
