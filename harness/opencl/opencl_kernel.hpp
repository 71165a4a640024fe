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

#include "harness/measure/kernel_arg.hpp"
#include "harness/measure/launch.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast::harness {

// One kernel argument: a buffer of this backend or a scalar.
using OpenClKernelArg = KernelArg<OpenClBuffer>;

// What the compiled kernel needs of the device (clGetKernelWorkGroupInfo);
// zeros when the kernel could not be created.
struct OpenClKernelResources {
  int64_t max_work_group_size = 0;  // largest group this kernel can launch with
  int64_t local_mem_bytes = 0;
  int64_t private_mem_bytes = 0;
  int64_t preferred_multiple = 0;
};

// Owns one cl_kernel, whose bound arguments are state: use a runner from one
// thread at a time.
class OpenClKernel {
 public:
  // Creates kernel `kernel_name` of `program` and binds `args` in order.
  // Throws Error(kBadArgument) for misuse: a null program (its build failed),
  // a program or buffer of another context, an unallocated buffer. A missing
  // kernel name or an argument the kernel rejects leaves ok() false.
  OpenClKernel(OpenClContext& context, const OpenClProgram& program, const std::string& kernel_name,
               const std::vector<OpenClKernelArg>& args);
  ~OpenClKernel();
  OpenClKernel(const OpenClKernel&) = delete;
  OpenClKernel& operator=(const OpenClKernel&) = delete;

  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }
  const OpenClKernelResources& resources() const { return resources_; }

  // Enqueues the kernel and waits for it. Returns runtime_error when setup
  // failed, the launch is refused (e.g. CL_INVALID_WORK_GROUP_SIZE) or the
  // kernel ends in error.
  LaunchResult Launch(const LaunchGeometry& geometry);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string message_;
  OpenClKernelResources resources_;
};

// One-shot form of OpenClKernel: create, bind, launch once.
LaunchResult Launch(OpenClContext& context, const OpenClProgram& program,
                    const std::string& kernel_name, const std::vector<OpenClKernelArg>& args,
                    const LaunchGeometry& geometry);

}  // namespace beast::harness
