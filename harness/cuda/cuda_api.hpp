// The CUDA driver API as beast uses it: the entry points of libcuda.so.1,
// resolved with dlsym when first needed, and the few types and enum values
// they take (stable across driver versions), declared here so that no CUDA
// header is needed and every binary builds and runs on a machine without a
// driver. Private to the harness.
#pragma once

#include <cstddef>
#include <string>

namespace beast::harness::cuda {

using Result = int;                    // CUresult; 0 is CUDA_SUCCESS
using Device = int;                    // CUdevice
using DevicePtr = unsigned long long;  // CUdeviceptr
using Context = struct CUctx_st*;
using Module = struct CUmod_st*;
using Function = struct CUfunc_st*;
using Stream = struct CUstream_st*;
using Event = struct CUevent_st*;

constexpr Result kSuccess = 0;

// CUdevice_attribute values (cuda.h).
enum DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxBlockDimX = 2,
  kMaxBlockDimY = 3,
  kMaxBlockDimZ = 4,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kClockRateKhz = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRateKhz = 36,
  kGlobalMemoryBusWidthBits = 37,
  kL2CacheBytes = 38,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerBlockOptin = 97,
};

// CUfunction_attribute values (cuda.h).
enum FunctionAttribute : int {
  kFuncMaxThreadsPerBlock = 0,
  kFuncSharedSizeBytes = 1,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
  kFuncMaxDynamicSharedSizeBytes = 8,
  kFuncPreferredSharedMemoryCarveout = 9,
};

// The driver's functions beast calls (the _v2 symbols where cuda.h maps a
// name to one).
struct Api {
  Result (*Init)(unsigned int flags);
  Result (*DriverGetVersion)(int* version);
  Result (*DeviceGetCount)(int* count);
  Result (*DeviceGet)(Device* device, int ordinal);
  Result (*DeviceGetName)(char* name, int length, Device device);
  Result (*DeviceGetAttribute)(int* value, int attribute, Device device);
  Result (*DeviceTotalMem)(size_t* bytes, Device device);
  Result (*DevicePrimaryCtxRetain)(Context* context, Device device);
  Result (*DevicePrimaryCtxRelease)(Device device);
  Result (*CtxSetCurrent)(Context context);
  Result (*CtxSynchronize)();
  Result (*MemAlloc)(DevicePtr* ptr, size_t bytes);
  Result (*MemFree)(DevicePtr ptr);
  Result (*MemcpyHtoD)(DevicePtr dst, const void* src, size_t bytes);
  Result (*MemcpyDtoH)(void* dst, DevicePtr src, size_t bytes);
  Result (*MemsetD8)(DevicePtr dst, unsigned char value, size_t count);
  Result (*MemsetD8Async)(DevicePtr dst, unsigned char value, size_t count, Stream stream);
  Result (*ModuleLoadData)(Module* module, const void* image);
  Result (*ModuleUnload)(Module module);
  Result (*ModuleGetFunction)(Function* function, Module module, const char* name);
  Result (*FuncGetAttribute)(int* value, int attribute, Function function);
  Result (*FuncSetAttribute)(Function function, int attribute, int value);
  Result (*LaunchKernel)(Function f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                         unsigned block_x, unsigned block_y, unsigned block_z,
                         unsigned shared_bytes, Stream stream, void** params, void** extra);
  Result (*StreamCreate)(Stream* stream, unsigned int flags);
  Result (*StreamDestroy)(Stream stream);
  Result (*StreamSynchronize)(Stream stream);
  Result (*EventCreate)(Event* event, unsigned int flags);
  Result (*EventDestroy)(Event event);
  Result (*EventRecord)(Event event, Stream stream);
  Result (*EventSynchronize)(Event event);
  Result (*EventElapsedTime)(float* ms, Event start, Event end);
  Result (*GetErrorName)(Result error, const char** name);
  Result (*GetErrorString)(Result error, const char** text);
};

// The driver's API, loaded on the first call and kept for the process (the
// driver does not support being unloaded). Null when libcuda.so.1 is absent
// or lacks an entry point; *why then says so in one line.
const Api* LoadApi(std::string* why);

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)",
// or "CUDA error N" when the driver cannot name it.
std::string ErrorText(const Api& api, Result result);

// The driver version as "12.4".
std::string DriverVersionText(const Api& api);

}  // namespace beast::harness::cuda
