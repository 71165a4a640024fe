// OpenClKernel: clCreateKernel + clSetKernelArg once, then timed launches on
// the context's profiling queue.
#include "harness/opencl/opencl_kernel.hpp"

#include <algorithm>
#include <string>

#include "beast/core/error.hpp"
#include "harness/opencl/opencl_errors.hpp"
#include "harness/opencl/opencl_handles.hpp"

namespace beast::harness {

struct OpenClKernel::Impl {
  OpenClContext::Impl* context = nullptr;
  OpenClProgram program;              // keeps the cl_program alive as long as the kernel
  std::vector<OpenClKernelArg> args;  // keeps the bound buffers alive
  cl_kernel kernel = nullptr;
  std::string name;
  ~Impl() {
    if (kernel) clReleaseKernel(kernel);
  }
};

namespace {

template <typename T>
int64_t KernelValue(cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info what) {
  T value{};
  if (clGetKernelWorkGroupInfo(kernel, device, what, sizeof(T), &value, nullptr) != CL_SUCCESS) {
    return 0;
  }
  return static_cast<int64_t>(value);
}

cl_int SetArg(cl_kernel kernel, cl_uint index, const OpenClKernelArg& arg) {
  switch (arg.kind) {
    case OpenClKernelArg::Kind::kBuffer:
      return clSetKernelArg(kernel, index, sizeof(cl_mem), &arg.buffer.impl()->mem);
    case OpenClKernelArg::Kind::kInt32:
      return clSetKernelArg(kernel, index, sizeof(int32_t), &arg.int_value);
    case OpenClKernelArg::Kind::kFloat:
      return clSetKernelArg(kernel, index, sizeof(float), &arg.float_value);
  }
  return CL_INVALID_ARG_VALUE;
}

}  // namespace

OpenClKernel::OpenClKernel(OpenClContext& context, const OpenClProgram& program,
                           const std::string& kernel_name, const std::vector<OpenClKernelArg>& args)
    : impl_(std::make_unique<Impl>()) {
  if (!program) {
    throw Error(ErrorCode::kBadArgument,
                "cannot run kernel '" + kernel_name + "': its program was not built");
  }
  if (program->context != context.impl().context) {
    throw Error(ErrorCode::kBadArgument,
                "cannot run kernel '" + kernel_name + "': program built in another context");
  }
  for (const OpenClKernelArg& arg : args) {
    if (arg.kind != OpenClKernelArg::Kind::kBuffer) continue;
    if (!arg.buffer.valid()) {
      throw Error(ErrorCode::kBadArgument,
                  "cannot run kernel '" + kernel_name + "': an argument buffer is unallocated");
    }
    if (arg.buffer.impl()->context != context.impl().context) {
      throw Error(ErrorCode::kBadArgument,
                  "cannot run kernel '" + kernel_name + "': a buffer of another context");
    }
  }
  impl_->context = &context.impl();
  impl_->program = program;
  impl_->args = args;
  impl_->name = kernel_name;

  cl_int status = CL_SUCCESS;
  impl_->kernel = clCreateKernel(program->program, kernel_name.c_str(), &status);
  if (status != CL_SUCCESS) {
    impl_->kernel = nullptr;
    message_ = "clCreateKernel('" + kernel_name + "') failed: " + OpenClErrorText(status);
    return;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    status = SetArg(impl_->kernel, static_cast<cl_uint>(i), args[i]);
    if (status != CL_SUCCESS) {
      message_ = "clSetKernelArg(" + std::to_string(i) + ") of '" + kernel_name +
                 "' failed: " + OpenClErrorText(status);
      return;
    }
  }
  cl_device_id device = impl_->context->device;
  resources_.max_work_group_size =
      KernelValue<size_t>(impl_->kernel, device, CL_KERNEL_WORK_GROUP_SIZE);
  resources_.local_mem_bytes =
      KernelValue<cl_ulong>(impl_->kernel, device, CL_KERNEL_LOCAL_MEM_SIZE);
  resources_.private_mem_bytes =
      KernelValue<cl_ulong>(impl_->kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE);
  resources_.preferred_multiple =
      KernelValue<size_t>(impl_->kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
}

OpenClKernel::~OpenClKernel() = default;

LaunchResult OpenClKernel::Launch(const LaunchGeometry& geometry) {
  LaunchResult result;
  if (!ok()) {
    result.message = message_;
    return result;
  }
  if (geometry.dims < 1 || geometry.dims > 3) {
    result.message = "launch of '" + impl_->name + "' has " + std::to_string(geometry.dims) +
                     " dimensions (1 to 3 allowed)";
    return result;
  }
  if (geometry.dynamic_local_bytes >= 0) {
    // The kernel's last argument is its __local buffer, sized at launch.
    const size_t bytes = std::max<size_t>(4, static_cast<size_t>(geometry.dynamic_local_bytes));
    const cl_uint index = static_cast<cl_uint>(impl_->args.size());
    cl_int set = clSetKernelArg(impl_->kernel, index, bytes, nullptr);
    if (set != CL_SUCCESS) {
      result.message = "clSetKernelArg(" + std::to_string(index) + ", " + std::to_string(bytes) +
                       " bytes of __local memory) of '" + impl_->name +
                       "' failed: " + OpenClErrorText(set);
      return result;
    }
  }
  bool runtime_chooses = true;
  for (int i = 0; i < geometry.dims; ++i) runtime_chooses &= geometry.local[i] == 0;
  cl_event event = nullptr;
  cl_int status = clEnqueueNDRangeKernel(
      impl_->context->queue, impl_->kernel, static_cast<cl_uint>(geometry.dims), nullptr,
      geometry.global, runtime_chooses ? nullptr : geometry.local, 0, nullptr, &event);
  if (status != CL_SUCCESS) {
    result.message = "clEnqueueNDRangeKernel('" + impl_->name + "', " + GeometryText(geometry) +
                     ") failed: " + OpenClErrorText(status);
    return result;
  }
  status = clWaitForEvents(1, &event);
  cl_int execution = CL_COMPLETE;
  if (status == CL_SUCCESS) {
    status = clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(execution), &execution,
                            nullptr);
  }
  // A kernel that faults ends with a negative execution status instead of
  // CL_COMPLETE; some drivers report it only through clWaitForEvents.
  if (status != CL_SUCCESS || execution < 0) {
    int code = status != CL_SUCCESS ? status : execution;
    result.message = "kernel '" + impl_->name + "' failed while running: " + OpenClErrorText(code);
    clReleaseEvent(event);
    return result;
  }
  cl_ulong start = 0, end = 0;
  status =
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
  if (status == CL_SUCCESS) {
    status = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
  }
  clReleaseEvent(event);
  if (status != CL_SUCCESS) {
    result.message = "no profiling time for '" + impl_->name + "': " + OpenClErrorText(status);
    return result;
  }
  result.status = LaunchStatus::kOk;
  result.kernel_ms = end > start ? static_cast<double>(end - start) * 1e-6 : 0.0;
  return result;
}

LaunchResult Launch(OpenClContext& context, const OpenClProgram& program,
                    const std::string& kernel_name, const std::vector<OpenClKernelArg>& args,
                    const LaunchGeometry& geometry) {
  OpenClKernel runner(context, program, kernel_name, args);
  return runner.Launch(geometry);
}

}  // namespace beast::harness
