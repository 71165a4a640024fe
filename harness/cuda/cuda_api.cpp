// Loading the CUDA driver API at run time (cuda_api.hpp).
#include "harness/cuda/cuda_api.hpp"

#include <dlfcn.h>

#include <mutex>

namespace beast::harness::cuda {
namespace {

template <typename Fn>
bool Resolve(void* library, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  return *fn != nullptr;
}

struct Loaded {
  Api api{};
  bool ok = false;
  std::string why;
};

Loaded Load() {
  Loaded loaded;
  // Never dlclose()d: the driver does not support being unloaded once
  // initialised.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    loaded.why = "no CUDA driver (libcuda.so.1 not found)";
    return loaded;
  }
  Api& a = loaded.api;
  const char* missing = nullptr;
  auto need = [&](const char* symbol, auto* fn) {
    if (!Resolve(library, symbol, fn) && missing == nullptr) missing = symbol;
  };
  need("cuInit", &a.Init);
  need("cuDriverGetVersion", &a.DriverGetVersion);
  need("cuDeviceGetCount", &a.DeviceGetCount);
  need("cuDeviceGet", &a.DeviceGet);
  need("cuDeviceGetName", &a.DeviceGetName);
  need("cuDeviceGetAttribute", &a.DeviceGetAttribute);
  need("cuDeviceTotalMem_v2", &a.DeviceTotalMem);
  need("cuDevicePrimaryCtxRetain", &a.DevicePrimaryCtxRetain);
  need("cuDevicePrimaryCtxRelease_v2", &a.DevicePrimaryCtxRelease);
  need("cuCtxSetCurrent", &a.CtxSetCurrent);
  need("cuCtxSynchronize", &a.CtxSynchronize);
  need("cuMemAlloc_v2", &a.MemAlloc);
  need("cuMemFree_v2", &a.MemFree);
  need("cuMemcpyHtoD_v2", &a.MemcpyHtoD);
  need("cuMemcpyDtoH_v2", &a.MemcpyDtoH);
  need("cuMemsetD8_v2", &a.MemsetD8);
  need("cuMemsetD8Async", &a.MemsetD8Async);
  need("cuModuleLoadData", &a.ModuleLoadData);
  need("cuModuleUnload", &a.ModuleUnload);
  need("cuModuleGetFunction", &a.ModuleGetFunction);
  need("cuFuncGetAttribute", &a.FuncGetAttribute);
  need("cuFuncSetAttribute", &a.FuncSetAttribute);
  need("cuLaunchKernel", &a.LaunchKernel);
  need("cuStreamCreate", &a.StreamCreate);
  need("cuStreamDestroy_v2", &a.StreamDestroy);
  need("cuStreamSynchronize", &a.StreamSynchronize);
  need("cuEventCreate", &a.EventCreate);
  need("cuEventDestroy_v2", &a.EventDestroy);
  need("cuEventRecord", &a.EventRecord);
  need("cuEventSynchronize", &a.EventSynchronize);
  // cuda.h maps the name to _v2 since CUDA 12.8; older drivers have only the first.
  if (!Resolve(library, "cuEventElapsedTime_v2", &a.EventElapsedTime))
    need("cuEventElapsedTime", &a.EventElapsedTime);
  need("cuGetErrorName", &a.GetErrorName);
  need("cuGetErrorString", &a.GetErrorString);
  if (missing != nullptr) {
    loaded.why = std::string("libcuda.so.1 lacks the CUDA driver API entry point ") + missing;
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

}  // namespace

const Api* LoadApi(std::string* why) {
  static const Loaded loaded = Load();  // thread-safe once
  if (!loaded.ok) {
    if (why) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

std::string ErrorText(const Api& api, Result result) {
  const char* name = nullptr;
  const char* text = nullptr;
  std::string out;
  if (api.GetErrorName(result, &name) == kSuccess && name != nullptr) {
    out = name;
  } else {
    out = "CUDA error " + std::to_string(result);
  }
  if (api.GetErrorString(result, &text) == kSuccess && text != nullptr)
    out += std::string(" (") + text + ")";
  return out;
}

std::string DriverVersionText(const Api& api) {
  int version = 0;
  api.DriverGetVersion(&version);
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace beast::harness::cuda
