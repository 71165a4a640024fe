/* beast_cuda_driver.h: the CUDA driver API entry points the runtime calls,
 * resolved from libcuda.so.1 at run time (the _v2 symbols where cuda.h maps
 * a name to one), and the attribute values they take. Private. */
#ifndef BEAST_CUDA_DRIVER_H_
#define BEAST_CUDA_DRIVER_H_

#include "beast_cuda.h"

/* CUdevice_attribute / CUfunction_attribute / CUpointer_attribute values. */
enum {
  BEAST_CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
  BEAST_CU_ATTR_MAX_BLOCK_DIM_X = 2, /* Y = 3, Z = 4 */
  BEAST_CU_ATTR_CC_MAJOR = 75,
  BEAST_CU_ATTR_CC_MINOR = 76,
  BEAST_CU_ATTR_SHARED_OPTIN = 97,
  BEAST_CU_FUNC_MAX_DYNAMIC_SHARED = 8,
  BEAST_CU_FUNC_CARVEOUT = 9,
  BEAST_CU_POINTER_CONTEXT = 1,
  BEAST_CU_POINTER_DEVICE_ORDINAL = 9
};

typedef struct beast_cuda_driver {
  beast_cu_result (*Init)(unsigned flags);
  beast_cu_result (*DriverGetVersion)(int* version);
  beast_cu_result (*DeviceGetCount)(int* count);
  beast_cu_result (*DeviceGet)(int* device, int ordinal);
  beast_cu_result (*DeviceGetName)(char* name, int len, int device);
  beast_cu_result (*DeviceGetAttribute)(int* value, int attribute, int device);
  beast_cu_result (*PrimaryCtxRetain)(beast_cu_context* context, int device);
  beast_cu_result (*PrimaryCtxRelease)(int device);
  beast_cu_result (*CtxSetCurrent)(beast_cu_context context);
  beast_cu_result (*CtxGetCurrent)(beast_cu_context* context);
  beast_cu_result (*MemAlloc)(beast_cu_ptr* ptr, size_t bytes);
  beast_cu_result (*MemFree)(beast_cu_ptr ptr);
  beast_cu_result (*MemcpyHtoD)(beast_cu_ptr dst, const void* src, size_t bytes);
  beast_cu_result (*MemcpyDtoH)(void* dst, beast_cu_ptr src, size_t bytes);
  beast_cu_result (*ModuleLoadData)(beast_cu_module* module, const void* image);
  beast_cu_result (*ModuleUnload)(beast_cu_module module);
  beast_cu_result (*ModuleGetFunction)(beast_cu_function* f, beast_cu_module m, const char* name);
  beast_cu_result (*FuncSetAttribute)(beast_cu_function f, int attribute, int value);
  beast_cu_result (*FuncGetAttribute)(int* value, int attribute, beast_cu_function f);
  beast_cu_result (*LaunchKernel)(beast_cu_function f, unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                  beast_cu_stream stream, void** params, void** extra);
  beast_cu_result (*StreamCreate)(beast_cu_stream* stream, unsigned flags);
  beast_cu_result (*StreamDestroy)(beast_cu_stream stream);
  beast_cu_result (*StreamSynchronize)(beast_cu_stream stream);
  beast_cu_result (*CtxSynchronize)(void);
  beast_cu_result (*PointerGetAttribute)(void* data, int attribute, beast_cu_ptr ptr);
  beast_cu_result (*GetErrorName)(beast_cu_result error, const char** name);
  /* Optional (NULL on a driver without it): the stream's context. */
  beast_cu_result (*StreamGetCtx)(beast_cu_stream stream, beast_cu_context* context);
  /* Optional (CUDA 11.2 and later): stream-ordered allocation from the
   * device's memory pool, so a call's workspace needs no wait for the GPU. */
  beast_cu_result (*MemAllocAsync)(beast_cu_ptr* ptr, size_t bytes, beast_cu_stream stream);
  beast_cu_result (*MemFreeAsync)(beast_cu_ptr ptr, beast_cu_stream stream);
} beast_cuda_driver;

/* The driver, loaded and initialised once per process; NULL with *why (one
 * line) when there is none. */
const beast_cuda_driver* beast_cuda_load_driver(const char** why);
/* "CUDA_ERROR_ILLEGAL_ADDRESS", or "CUDA error" when the driver cannot say. */
const char* beast_cuda_error_name(beast_cu_result r);

struct beast_context;
/* The function `name` of entry e's module (e NULL: the generic kernels),
 * loading the module on first use under ctx's mutex. */
beast_status beast_cuda_function(struct beast_context* ctx, const beast_entry* e, const char* name,
                                 beast_cu_function* function);

#endif /* BEAST_CUDA_DRIVER_H_ */
