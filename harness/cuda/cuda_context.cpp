// A CUDA GPU opened for work (cuda_context.hpp).
#include "harness/cuda/cuda_context.hpp"

#include "beast/core/error.hpp"
#include "harness/cuda/cuda_context_impl.hpp"
#include "harness/cuda/cuda_driver.hpp"

namespace beast::harness {
namespace {

// cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE); 50 MiB (an H100's)
// when the driver does not say.
size_t L2Bytes(const cuda::Api& api, cuda::Device device) {
  int bytes = 0;
  if (api.DeviceGetAttribute(&bytes, cuda::kL2CacheBytes, device) != cuda::kSuccess || bytes <= 0)
    return size_t{50} << 20;
  return static_cast<size_t>(bytes);
}

}  // namespace

CudaBufferImpl::~CudaBufferImpl() {
  // A lost context fails the free too; there is nothing more to do then.
  if (api != nullptr && ptr != 0) api->MemFree(ptr);
}

CudaBuffer::CudaBuffer(std::shared_ptr<CudaBufferImpl> impl) : impl_(std::move(impl)) {}
uint64_t CudaBuffer::device_ptr() const { return impl_ ? impl_->ptr : 0; }
size_t CudaBuffer::bytes() const { return impl_ ? impl_->bytes : 0; }

void CudaContext::Impl::Check(cuda::Result result, const std::string& what) const {
  if (result != cuda::kSuccess)
    throw Error(ErrorCode::kEnvironment,
                "CUDA: " + what + " failed: " + cuda::ErrorText(*api, result));
}

CudaContext::CudaContext(int device_index) : impl_(std::make_unique<Impl>()) {
  std::string why;
  impl_->api = cuda::LoadApi(&why);
  if (impl_->api == nullptr) throw Error(ErrorCode::kEnvironment, why);
  CudaProbe probe = ProbeCuda();  // cuInit and the devices' limits
  if (device_index < 0 || device_index >= static_cast<int>(probe.devices.size())) {
    throw Error(ErrorCode::kNotFound,
                "no device cuda:" + std::to_string(device_index) + " (" + probe.message + ")");
  }
  impl_->info = probe.devices[device_index];
  const cuda::Api& api = *impl_->api;
  try {
    impl_->Check(api.DeviceGet(&impl_->device, device_index), "cuDeviceGet");
    impl_->Check(api.DevicePrimaryCtxRetain(&impl_->context, impl_->device),
                 "cuDevicePrimaryCtxRetain");
    impl_->Check(api.CtxSetCurrent(impl_->context), "cuCtxSetCurrent");
    impl_->Check(api.StreamCreate(&impl_->stream, 0), "cuStreamCreate");
  } catch (...) {
    // The destructor does not run for a constructor that throws.
    if (impl_->stream != nullptr) api.StreamDestroy(impl_->stream);
    if (impl_->context != nullptr) api.DevicePrimaryCtxRelease(impl_->device);
    throw;
  }
  impl_->l2_bytes = L2Bytes(api, impl_->device);
}

CudaContext::~CudaContext() {
  const cuda::Api& api = *impl_->api;
  impl_->l2_scratch = CudaBuffer();
  if (impl_->start != nullptr) api.EventDestroy(impl_->start);
  if (impl_->stop != nullptr) api.EventDestroy(impl_->stop);
  if (impl_->gate_module != nullptr) api.ModuleUnload(impl_->gate_module);
  if (impl_->stream != nullptr) api.StreamDestroy(impl_->stream);
  if (impl_->context != nullptr) api.DevicePrimaryCtxRelease(impl_->device);
}

const beast::DeviceInfo& CudaContext::device() const { return impl_->info; }

void CudaContext::MakeCurrent() const {
  impl_->Check(impl_->api->CtxSetCurrent(impl_->context), "cuCtxSetCurrent");
}

void* CudaContext::stream() const { return impl_->stream; }

std::string CudaContext::TimingGateProblem() const { return impl_->gate_error; }

CudaBuffer CudaContext::Allocate(size_t bytes) {
  if (bytes == 0) throw Error(ErrorCode::kBadArgument, "CUDA: cannot allocate 0 bytes");
  auto buffer = std::make_shared<CudaBufferImpl>();
  buffer->bytes = bytes;
  impl_->Check(impl_->api->MemAlloc(&buffer->ptr, bytes),
               "cuMemAlloc of " + std::to_string(bytes) + " bytes");
  buffer->api = impl_->api;
  return CudaBuffer(std::move(buffer));
}

namespace {

void CheckFits(const CudaBuffer& buffer, size_t bytes, const char* what) {
  if (!buffer.valid() || bytes > buffer.bytes()) {
    throw Error(ErrorCode::kBadArgument, std::string("CUDA: ") + what + " of " +
                                             std::to_string(bytes) + " bytes into a buffer of " +
                                             std::to_string(buffer.bytes()));
  }
}

}  // namespace

void CudaContext::Write(const CudaBuffer& buffer, const void* host, size_t bytes) {
  CheckFits(buffer, bytes, "write");
  impl_->Check(impl_->api->StreamSynchronize(impl_->stream), "cuStreamSynchronize");
  impl_->Check(impl_->api->MemcpyHtoD(buffer.device_ptr(), host, bytes), "cuMemcpyHtoD");
}

void CudaContext::Read(const CudaBuffer& buffer, void* host, size_t bytes) {
  CheckFits(buffer, bytes, "read");
  impl_->Check(impl_->api->StreamSynchronize(impl_->stream), "cuStreamSynchronize");
  impl_->Check(impl_->api->MemcpyDtoH(host, buffer.device_ptr(), bytes), "cuMemcpyDtoH");
}

void CudaContext::Fill(const CudaBuffer& buffer, unsigned char value) {
  CheckFits(buffer, buffer.bytes(), "fill");
  impl_->Check(impl_->api->MemsetD8Async(buffer.device_ptr(), value, buffer.bytes(), impl_->stream),
               "cuMemsetD8Async");
  impl_->Check(impl_->api->StreamSynchronize(impl_->stream), "cuStreamSynchronize");
}

bool CudaContext::Impl::EnqueueL2Flush(std::string* error) {
  if (!l2_scratch.valid()) {
    auto scratch = std::make_shared<CudaBufferImpl>();
    scratch->bytes = 2 * l2_bytes;
    cuda::Result r = api->MemAlloc(&scratch->ptr, scratch->bytes);
    if (r != cuda::kSuccess) {
      *error = "cuMemAlloc of the L2 flush buffer failed: " + cuda::ErrorText(*api, r);
      return false;
    }
    scratch->api = api;
    l2_scratch = CudaBuffer(std::move(scratch));
  }
  // A different value each time, so no write can be elided.
  cuda::Result r =
      api->MemsetD8Async(l2_scratch.device_ptr(), ++l2_value, l2_scratch.bytes(), stream);
  if (r != cuda::kSuccess) {
    *error = "the L2 flush failed: " + cuda::ErrorText(*api, r);
    return false;
  }
  return true;
}

LaunchResult CudaContext::Timed(const std::function<std::string()>& enqueue) {
  LaunchResult result;
  const cuda::Api& api = *impl_->api;
  cuda::Result r = cuda::kSuccess;
  if (impl_->start == nullptr && (r = api.EventCreate(&impl_->start, 0)) != cuda::kSuccess) {
    impl_->start = nullptr;
    result.message = "cuEventCreate failed: " + cuda::ErrorText(api, r);
    return result;
  }
  if (impl_->stop == nullptr && (r = api.EventCreate(&impl_->stop, 0)) != cuda::kSuccess) {
    impl_->stop = nullptr;
    result.message = "cuEventCreate failed: " + cuda::ErrorText(api, r);
    return result;
  }
  impl_->EnqueueGate();  // the library's set-up is not timed (harness/cuda_gate.hpp)
  api.EventRecord(impl_->start, impl_->stream);
  std::string failed = enqueue();
  api.EventRecord(impl_->stop, impl_->stream);
  r = api.EventSynchronize(impl_->stop);
  if (!failed.empty()) {
    result.message = failed;
    return result;
  }
  if (r != cuda::kSuccess) {
    result.message = "the call failed while running: " + cuda::ErrorText(api, r);
    return result;
  }
  float ms = 0;
  if ((r = api.EventElapsedTime(&ms, impl_->start, impl_->stop)) != cuda::kSuccess) {
    result.message = "cuEventElapsedTime failed: " + cuda::ErrorText(api, r);
    return result;
  }
  result.status = LaunchStatus::kOk;
  result.kernel_ms = ms;
  return result;
}

void CudaContext::FlushL2() {
  std::string error;
  if (!impl_->EnqueueL2Flush(&error)) throw Error(ErrorCode::kEnvironment, "CUDA: " + error);
}

}  // namespace beast::harness
