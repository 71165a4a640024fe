// One OpenCL device opened for work: its context, a profiling in-order queue,
// program builds (a failed build is data: ok=false with the full log) and
// device buffers. No OpenCL header leaks out: handles are opaque.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "beast/device.hpp"

namespace beast::harness {

struct ProgramImpl;  // owns a cl_program (opencl_handles.hpp)
struct BufferImpl;   // owns a cl_mem

// A built program; null when the build failed.
using ProgramHandle = std::shared_ptr<const ProgramImpl>;

struct BuildResult {
  bool ok = false;
  std::string log;        // the compiler's full build log (warnings too)
  double compile_ms = 0;  // wall clock of create + build
  ProgramHandle program;  // set when ok
};

// A device allocation; copies share it, the last copy releases it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::shared_ptr<BufferImpl> impl);
  size_t bytes() const;
  bool valid() const { return impl_ != nullptr; }
  const std::shared_ptr<BufferImpl>& impl() const { return impl_; }

 private:
  std::shared_ptr<BufferImpl> impl_;
};

// Build, Allocate, Write and Read may be called from several threads at once
// (OpenCL API calls are thread-safe); transfers and launches share one
// in-order queue, so they run one after another on the device.
class OpenCLContext {
 public:
  struct Impl;

  // Opens device opencl:<device_index> as listed by ListOpenCLDevices().
  // Throws Error(kNotFound) for an index that is not there, Error(kEnvironment)
  // when the context or queue cannot be created.
  explicit OpenCLContext(int device_index);
  ~OpenCLContext();
  OpenCLContext(const OpenCLContext&) = delete;
  OpenCLContext& operator=(const OpenCLContext&) = delete;

  const beast::DeviceInfo& device() const;

  // Compiles `source` with clBuildProgram `options`. Never throws for a bad
  // source or bad options: that is data (ok=false, log says why).
  BuildResult Build(const std::string& source, const std::string& options);

  // Allocates `bytes` (> 0) of device memory. Throws Error(kBadArgument) for
  // 0 bytes, Error(kEnvironment) when the device refuses.
  DeviceBuffer Allocate(size_t bytes);
  // Blocking copies; bytes must fit in the buffer (else Error(kBadArgument)).
  void Write(const DeviceBuffer& buffer, const void* host, size_t bytes);
  void Read(const DeviceBuffer& buffer, void* host, size_t bytes);
  // Sets every byte of the buffer to `value` (e.g. to clear an output).
  void Fill(const DeviceBuffer& buffer, unsigned char value);

  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace beast::harness
