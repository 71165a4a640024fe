// One CUDA GPU opened for work through the driver API loaded at run time: its
// primary context (shared with cuBLAS and cuDNN, which use the runtime API),
// one stream that every transfer and launch goes through, device buffers,
// and the L2 flush that lets a timed kernel start from a cold cache. No CUDA
// header leaks out: handles are opaque. A transfer that fails means the
// context is lost (a kernel crashed it): Error(kEnvironment).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "beast/problem/device.hpp"
#include "harness/measure/launch.hpp"

namespace beast::harness {

struct CudaBufferImpl;

// A device allocation; copies share it, the last copy frees it.
class CudaBuffer {
 public:
  CudaBuffer() = default;
  explicit CudaBuffer(std::shared_ptr<CudaBufferImpl> impl);
  uint64_t device_ptr() const;  // the CUdeviceptr; 0 when not allocated
  size_t bytes() const;
  bool valid() const { return impl_ != nullptr; }

 private:
  std::shared_ptr<CudaBufferImpl> impl_;
};

class CudaContext {
 public:
  struct Impl;

  // Opens device cuda:<device_index> as `beast devices` lists it. Throws
  // Error(kEnvironment) without a usable driver, Error(kNotFound) for an
  // index that is not there.
  explicit CudaContext(int device_index);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  const beast::DeviceInfo& device() const;

  // Allocates `bytes` (> 0). Throws Error(kBadArgument) for 0 bytes,
  // Error(kEnvironment) when the device refuses.
  CudaBuffer Allocate(size_t bytes);
  // Blocking copies and fills on the context's stream; bytes must fit the
  // buffer (else Error(kBadArgument)).
  void Write(const CudaBuffer& buffer, const void* host, size_t bytes);
  void Read(const CudaBuffer& buffer, void* host, size_t bytes);
  void Fill(const CudaBuffer& buffer, unsigned char value);

  // Enqueues a write over a buffer twice the size of the L2 cache on the
  // stream, so that the next kernel finds none of its data in L2.
  void FlushL2();

  // Makes the context current on the calling thread (the driver API and the
  // libraries act on the current context).
  void MakeCurrent() const;
  // The CUstream every launch goes through (for cuBLAS / cuDNN), as void*.
  void* stream() const;
  // Why timings run without the launch gate (harness/cuda_gate.hpp), once a
  // timed call tried to build it: "" when the gate works or was not tried.
  std::string TimingGateProblem() const;

  // Runs `enqueue` — which puts work on stream() and returns "" or why it
  // failed — between two events, and waits: the work's device time, or a
  // runtime_error saying what failed (a fault while it ran included).
  LaunchResult Timed(const std::function<std::string()>& enqueue);

  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace beast::harness
