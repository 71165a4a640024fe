// OpenClContext: opens one device, builds programs (failure is data) and
// moves bytes between host and device.
#include "harness/opencl/opencl_context.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/opencl/opencl_cached_build.hpp"
#include "harness/opencl/opencl_errors.hpp"
#include "harness/opencl/opencl_handles.hpp"

namespace beast::harness {
namespace {

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0) {
    return "";
  }
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS) {
    return "";
  }
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

void CheckTransfer(cl_context context, const OpenClBuffer& buffer, const void* host, size_t bytes,
                   const char* what) {
  if (!buffer.valid()) {
    throw Error(ErrorCode::kBadArgument, std::string(what) + ": buffer was never allocated");
  }
  if (buffer.impl()->context != context) {
    throw Error(ErrorCode::kBadArgument,
                std::string(what) + ": buffer belongs to another OpenCL context");
  }
  if (host == nullptr && bytes > 0) {
    throw Error(ErrorCode::kBadArgument, std::string(what) + ": null host pointer");
  }
  if (bytes > buffer.bytes()) {
    throw Error(ErrorCode::kBadArgument, std::string(what) + ": " + std::to_string(bytes) +
                                             " bytes do not fit in a " +
                                             std::to_string(buffer.bytes()) + "-byte buffer");
  }
}

}  // namespace

OpenClBuffer::OpenClBuffer(std::shared_ptr<BufferImpl> impl) : impl_(std::move(impl)) {}

size_t OpenClBuffer::bytes() const { return impl_ ? impl_->bytes : 0; }

OpenClContext::OpenClContext(int device_index) : impl_(std::make_unique<Impl>()) {
  std::vector<cl_device_id> devices = EnumerateOpenClDevices();
  if (device_index < 0 || static_cast<size_t>(device_index) >= devices.size()) {
    throw Error(ErrorCode::kNotFound, "no OpenCL device opencl:" + std::to_string(device_index) +
                                          " (" + std::to_string(devices.size()) +
                                          " devices present)");
  }
  impl_->device = devices[device_index];
  cl_int status = CL_SUCCESS;
  impl_->context = clCreateContext(nullptr, 1, &impl_->device, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) {
    impl_->context = nullptr;
    throw Error(ErrorCode::kEnvironment,
                "cannot create an OpenCL context on opencl:" + std::to_string(device_index) + ": " +
                    OpenClErrorText(status));
  }
  // In order, so a launch's profiling interval covers that kernel alone.
  impl_->queue =
      clCreateCommandQueue(impl_->context, impl_->device, CL_QUEUE_PROFILING_ENABLE, &status);
  if (status != CL_SUCCESS) {
    impl_->queue = nullptr;
    throw Error(ErrorCode::kEnvironment,
                "cannot create a profiling queue on opencl:" + std::to_string(device_index) + ": " +
                    OpenClErrorText(status));
  }
  impl_->info = QueryOpenClDevice(impl_->device, device_index, impl_->context);
}

OpenClContext::~OpenClContext() = default;

const beast::DeviceInfo& OpenClContext::device() const { return impl_->info; }

OpenClBuildResult OpenClContext::Build(const std::string& source, const std::string& options) {
  if (cache_) return BuildOpenClThroughCache(*this, *cache_, source, options);
  return BuildFromSource(source, options);
}

void OpenClContext::UseProgramCache(std::shared_ptr<const ProgramCache> cache) {
  cache_ = std::move(cache);
}

OpenClBuildResult OpenClContext::BuildFromSource(const std::string& source,
                                                 const std::string& options) {
  OpenClBuildResult result;
  auto start = std::chrono::steady_clock::now();
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(impl_->context, 1, &text, &length, &status);
  if (status != CL_SUCCESS) {
    result.log = "clCreateProgramWithSource failed: " + OpenClErrorText(status);
    return result;
  }
  auto owner = std::make_shared<ProgramImpl>();
  owner->program = program;
  owner->context = impl_->context;
  status = clBuildProgram(program, 1, &impl_->device, options.c_str(), nullptr, nullptr);
  result.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  result.log = BuildLog(program, impl_->device);
  if (status != CL_SUCCESS) {
    // Keep the compiler's words; name the status too, since bad options leave
    // no log at all.
    if (!result.log.empty() && result.log.back() != '\n') result.log += '\n';
    result.log += "clBuildProgram failed: " + OpenClErrorText(status);
    result.rejected = status == CL_BUILD_PROGRAM_FAILURE;
    return result;
  }
  result.ok = true;
  result.program = std::move(owner);
  return result;
}

OpenClBuffer OpenClContext::Allocate(size_t bytes) {
  if (bytes == 0) throw Error(ErrorCode::kBadArgument, "cannot allocate a 0-byte device buffer");
  cl_int status = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(impl_->context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::kEnvironment, "cannot allocate " + std::to_string(bytes) + " bytes on " +
                                             impl_->info.Id() + ": " + OpenClErrorText(status));
  }
  auto impl = std::make_shared<BufferImpl>();
  impl->mem = mem;
  impl->bytes = bytes;
  impl->context = impl_->context;
  return OpenClBuffer(std::move(impl));
}

void OpenClContext::Write(const OpenClBuffer& buffer, const void* host, size_t bytes) {
  CheckTransfer(impl_->context, buffer, host, bytes, "Write");
  if (bytes == 0) return;
  cl_int status = clEnqueueWriteBuffer(impl_->queue, buffer.impl()->mem, CL_TRUE, 0, bytes, host, 0,
                                       nullptr, nullptr);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::kEnvironment, "writing " + std::to_string(bytes) + " bytes to " +
                                             impl_->info.Id() +
                                             " failed: " + OpenClErrorText(status));
  }
}

void OpenClContext::Read(const OpenClBuffer& buffer, void* host, size_t bytes) {
  CheckTransfer(impl_->context, buffer, host, bytes, "Read");
  if (bytes == 0) return;
  cl_int status = clEnqueueReadBuffer(impl_->queue, buffer.impl()->mem, CL_TRUE, 0, bytes, host, 0,
                                      nullptr, nullptr);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::kEnvironment, "reading " + std::to_string(bytes) + " bytes from " +
                                             impl_->info.Id() +
                                             " failed: " + OpenClErrorText(status));
  }
}

void OpenClContext::FlushCache() {
  if (!cache_scratch_.valid()) {
    cl_ulong cache = 0;
    if (clGetDeviceInfo(impl_->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache,
                        nullptr) != CL_SUCCESS ||
        cache == 0) {
      cache = cl_ulong{32} << 20;  // larger than most last-level caches per socket
    }
    cache_scratch_ = Allocate(static_cast<size_t>(2 * cache));
  }
  // A different value each time, so no write can be elided. Not waited for:
  // the in-order queue runs the next kernel after it, and the kernel's
  // profiling span starts then.
  unsigned char value = ++cache_value_;
  cl_int status = clEnqueueFillBuffer(impl_->queue, cache_scratch_.impl()->mem, &value, 1, 0,
                                      cache_scratch_.bytes(), 0, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::kEnvironment, "flushing the cache of " + impl_->info.Id() +
                                             " failed: " + OpenClErrorText(status));
  }
}

void OpenClContext::Fill(const OpenClBuffer& buffer, unsigned char value) {
  CheckTransfer(impl_->context, buffer, &value, 0, "Fill");
  cl_int status = clEnqueueFillBuffer(impl_->queue, buffer.impl()->mem, &value, 1, 0,
                                      buffer.bytes(), 0, nullptr, nullptr);
  if (status == CL_SUCCESS) status = clFinish(impl_->queue);
  if (status != CL_SUCCESS) {
    throw Error(ErrorCode::kEnvironment,
                "filling a buffer on " + impl_->info.Id() + " failed: " + OpenClErrorText(status));
  }
}

}  // namespace beast::harness
