// Runs one kernel of a built OpenCL program: binds arguments once, then
// launches with a given geometry and returns the kernel's device time from
// profiling events. A kernel that cannot be created or launched is data
// (status runtime_error + message), never an exception.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/launch.hpp"
#include "harness/opencl_context.hpp"

namespace beast::harness {

// One kernel argument: a device buffer (implicit) or a scalar.
struct KernelArg {
  enum class Kind { kBuffer, kInt32, kFloat };
  KernelArg(const DeviceBuffer& buffer) : kind(Kind::kBuffer), buffer(buffer) {}  // NOLINT
  static KernelArg Int32(int32_t value);
  static KernelArg Float(float value);

  Kind kind = Kind::kBuffer;
  DeviceBuffer buffer;
  int32_t int_value = 0;
  float float_value = 0;
};

// What the compiled kernel needs of the device (clGetKernelWorkGroupInfo);
// zeros when the kernel could not be created.
struct KernelResources {
  int64_t max_work_group_size = 0;  // largest group this kernel can launch with
  int64_t local_mem_bytes = 0;
  int64_t private_mem_bytes = 0;
  int64_t preferred_multiple = 0;
};

// Owns one cl_kernel, whose bound arguments are state: use a runner from one
// thread at a time.
class KernelRunner {
 public:
  // Creates kernel `kernel_name` of `program` and binds `args` in order.
  // Throws Error(kBadArgument) for misuse: a null program (its build failed),
  // a program or buffer of another context, an unallocated buffer. A missing
  // kernel name or an argument the kernel rejects leaves ok() false.
  KernelRunner(OpenCLContext& context, const ProgramHandle& program, const std::string& kernel_name,
               const std::vector<KernelArg>& args);
  ~KernelRunner();
  KernelRunner(const KernelRunner&) = delete;
  KernelRunner& operator=(const KernelRunner&) = delete;

  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }
  const KernelResources& resources() const { return resources_; }

  // Enqueues the kernel and waits for it. Returns runtime_error when setup
  // failed, the launch is refused (e.g. CL_INVALID_WORK_GROUP_SIZE) or the
  // kernel ends in error.
  LaunchResult Launch(const LaunchGeometry& geometry);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string message_;
  KernelResources resources_;
};

// One-shot form of KernelRunner: create, bind, launch once.
LaunchResult Launch(OpenCLContext& context, const ProgramHandle& program,
                    const std::string& kernel_name, const std::vector<KernelArg>& args,
                    const LaunchGeometry& geometry);

}  // namespace beast::harness
