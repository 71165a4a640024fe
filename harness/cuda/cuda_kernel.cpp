// A CUDA kernel loaded from a cubin and launched with events (cuda_kernel.hpp).
#include "harness/cuda/cuda_kernel.hpp"

#include "beast/core/error.hpp"
#include "harness/cuda/cuda_context_impl.hpp"

namespace beast::harness {
namespace {

// Dynamic shared memory beyond this needs the function's opt-in.
constexpr int64_t kDefaultDynamicSharedLimit = 48 * 1024;

}  // namespace

struct CudaKernel::Impl {
  CudaContext::Impl* context = nullptr;
  cuda::Module module = nullptr;
  cuda::Function function = nullptr;
  std::string name;
  std::vector<CudaKernelArg> args;  // keeps the buffers alive
  std::vector<uint64_t> pointers;   // the values cuLaunchKernel reads, one per argument
  std::vector<void*> params;
  cuda::Event start = nullptr, stop = nullptr;
  // The function's MAX_DYNAMIC_SHARED_SIZE_BYTES: by default 48 KiB less its
  // static shared memory, raised (the opt-in) when a launch needs more.
  int dynamic_limit = static_cast<int>(kDefaultDynamicSharedLimit);
  int carveout = -1;  // as set; -1 never set

  std::string Configure(const LaunchGeometry& g, int dynamic);
  ~Impl() {
    if (context == nullptr) return;
    const cuda::Api& api = *context->api;
    if (start) api.EventDestroy(start);
    if (stop) api.EventDestroy(stop);
    if (module) api.ModuleUnload(module);
  }
};

CudaKernel::CudaKernel(CudaContext& context, const std::string& image,
                       const std::string& kernel_name, const std::vector<CudaKernelArg>& args)
    : impl_(std::make_unique<Impl>()) {
  for (const CudaKernelArg& arg : args) {
    if (arg.kind == CudaKernelArg::Kind::kBuffer && !arg.buffer.valid()) {
      throw Error(ErrorCode::kBadArgument,
                  "cannot run kernel '" + kernel_name + "': an argument buffer is unallocated");
    }
  }
  Impl& k = *impl_;
  k.context = &context.impl();
  k.name = kernel_name;
  k.args = args;
  const cuda::Api& api = *k.context->api;
  context.MakeCurrent();
  cuda::Result r = api.ModuleLoadData(&k.module, image.data());
  if (r != cuda::kSuccess) {
    k.module = nullptr;
    message_ =
        "cuModuleLoadData refused the binary of '" + kernel_name + "': " + cuda::ErrorText(api, r);
    return;
  }
  r = api.ModuleGetFunction(&k.function, k.module, kernel_name.c_str());
  if (r != cuda::kSuccess) {
    message_ = "cuModuleGetFunction('" + kernel_name + "') failed: " + cuda::ErrorText(api, r);
    return;
  }
  if ((r = api.EventCreate(&k.start, 0)) != cuda::kSuccess ||
      (r = api.EventCreate(&k.stop, 0)) != cuda::kSuccess) {
    message_ = "cuEventCreate failed: " + cuda::ErrorText(api, r);
    return;
  }
  // Every argument's value lives in `pointers` (8 bytes each, enough for a
  // pointer, an int or a float), and params points at them.
  k.pointers.assign(args.size(), 0);
  for (size_t i = 0; i < args.size(); ++i) {
    switch (args[i].kind) {
      case CudaKernelArg::Kind::kBuffer:
        k.pointers[i] = args[i].buffer.device_ptr();
        break;
      case CudaKernelArg::Kind::kInt32:
        *reinterpret_cast<int32_t*>(&k.pointers[i]) = args[i].int_value;
        break;
      case CudaKernelArg::Kind::kFloat:
        *reinterpret_cast<float*>(&k.pointers[i]) = args[i].float_value;
        break;
    }
    k.params.push_back(&k.pointers[i]);
  }
  auto attribute = [&](int which) {
    int value = 0;
    api.FuncGetAttribute(&value, which, k.function);
    return value;
  };
  resources_.registers = attribute(cuda::kFuncNumRegs);
  resources_.static_shared_bytes = attribute(cuda::kFuncSharedSizeBytes);
  resources_.local_bytes = attribute(cuda::kFuncLocalSizeBytes);
  resources_.max_threads_per_block = attribute(cuda::kFuncMaxThreadsPerBlock);
  k.dynamic_limit = attribute(cuda::kFuncMaxDynamicSharedSizeBytes);
}

CudaKernel::~CudaKernel() = default;

namespace {

// The grid and blocks of `g`; "" or why CUDA cannot launch it.
std::string GridOf(const LaunchGeometry& g, const std::string& name, unsigned grid[3],
                   unsigned block[3]) {
  if (g.dims < 1 || g.dims > 3)
    return "launch of '" + name + "' has " + std::to_string(g.dims) +
           " dimensions (1 to 3 allowed)";
  for (int d = 0; d < g.dims; ++d) {
    // As OpenCL requires: whole blocks only, so a kernel written for OpenCL's
    // NDRange sees the same work-items here.
    if (g.local[d] == 0 || g.global[d] % g.local[d] != 0) {
      return "launch of '" + name + "' (" + GeometryText(g) +
             "): the global size must be a whole number of blocks";
    }
    // Every GPU since compute capability 3.0 has these grid limits.
    const size_t max_blocks = d == 0 ? 2147483647u : 65535u;
    if (g.global[d] / g.local[d] > max_blocks) {
      return "launch of '" + name + "' (" + GeometryText(g) +
             "): " + std::to_string(g.global[d] / g.local[d]) + " blocks along dimension " +
             std::to_string(d) + ", more than CUDA's " + std::to_string(max_blocks);
    }
    block[d] = static_cast<unsigned>(g.local[d]);
    grid[d] = static_cast<unsigned>(g.global[d] / g.local[d]);
  }
  return "";
}

}  // namespace

// The function's launch settings as `g` asks: the dynamic shared memory
// opt-in beyond what static shared memory leaves, and the carveout; "" or
// why the driver refused one.
std::string CudaKernel::Impl::Configure(const LaunchGeometry& g, int dynamic) {
  const cuda::Api& api = *context->api;
  if (dynamic > dynamic_limit) {
    const cuda::Result r =
        api.FuncSetAttribute(function, cuda::kFuncMaxDynamicSharedSizeBytes, dynamic);
    if (r != cuda::kSuccess) {
      return "cuFuncSetAttribute(max dynamic shared memory = " + std::to_string(dynamic) +
             ") of '" + name + "' failed: " + cuda::ErrorText(api, r);
    }
    dynamic_limit = dynamic;
  }
  if (g.shared_carveout >= 0 && g.shared_carveout != carveout) {
    const cuda::Result r =
        api.FuncSetAttribute(function, cuda::kFuncPreferredSharedMemoryCarveout, g.shared_carveout);
    if (r != cuda::kSuccess) {
      return "cuFuncSetAttribute(shared memory carveout = " + std::to_string(g.shared_carveout) +
             "%) of '" + name + "' failed: " + cuda::ErrorText(api, r);
    }
    carveout = g.shared_carveout;
  }
  return "";
}

LaunchResult CudaKernel::Launch(const LaunchGeometry& g, bool flush_l2) {
  LaunchResult result;
  if (!ok()) {
    result.message = message_;
    return result;
  }
  Impl& k = *impl_;
  const cuda::Api& api = *k.context->api;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  const int dynamic = g.dynamic_local_bytes > 0 ? static_cast<int>(g.dynamic_local_bytes) : 0;
  result.message = GridOf(g, k.name, grid, block);
  if (result.message.empty()) result.message = k.Configure(g, dynamic);
  if (!result.message.empty()) return result;
  cuda::Stream stream = k.context->stream;
  if (flush_l2 && !k.context->EnqueueL2Flush(&result.message)) return result;
  k.context->EnqueueGate();  // timed as the libraries are (harness/cuda/cuda_gate.hpp)
  api.EventRecord(k.start, stream);
  cuda::Result r =
      api.LaunchKernel(k.function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                       static_cast<unsigned>(dynamic), stream, k.params.data(), nullptr);
  if (r != cuda::kSuccess) {
    result.message = "cuLaunchKernel('" + k.name + "', " + GeometryText(g) + ", " +
                     std::to_string(dynamic) +
                     " bytes of dynamic shared memory) failed: " + cuda::ErrorText(api, r);
    return result;
  }
  api.EventRecord(k.stop, stream);
  // A kernel that faults shows here (the error is sticky: the context is
  // lost, and the worker's next transfer finds out).
  r = api.EventSynchronize(k.stop);
  if (r != cuda::kSuccess) {
    result.message = "kernel '" + k.name + "' failed while running: " + cuda::ErrorText(api, r);
    return result;
  }
  float ms = 0;
  r = api.EventElapsedTime(&ms, k.start, k.stop);
  if (r != cuda::kSuccess) {
    result.message = "cuEventElapsedTime failed: " + cuda::ErrorText(api, r);
    return result;
  }
  result.status = LaunchStatus::kOk;
  result.kernel_ms = ms;
  return result;
}

}  // namespace beast::harness
