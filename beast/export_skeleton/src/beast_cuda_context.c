/* beast_cuda_context.c: a CUDA GPU opened for the library — the driver API
 * loaded at run time, the device's primary context (so device pointers of
 * the application's runtime API calls work here), a stream of beast's own,
 * and the modules of the tuned entries, each loaded once per context on
 * first use: the cubin when it was compiled for this GPU's architecture,
 * else its PTX, JIT-compiled by the driver for this GPU. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beast_cuda_driver.h"
#include "beast_runtime.h"

static beast_cuda_driver g_driver;
static int g_driver_ok;
static char g_driver_error[256];
static pthread_once_t g_driver_once = PTHREAD_ONCE_INIT;

#define BEAST_RESOLVE(field, symbol)                   \
  do {                                                 \
    *(void**)(&g_driver.field) = dlsym(lib, symbol);   \
    if (!g_driver.field && !missing) missing = symbol; \
  } while (0)

static void LoadDriver(void) {
  /* Never closed: the driver does not support being unloaded. */
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(g_driver_error, sizeof g_driver_error, "no CUDA driver (libcuda.so.1 not found)");
    return;
  }
  const char* missing = NULL;
  BEAST_RESOLVE(Init, "cuInit");
  BEAST_RESOLVE(DriverGetVersion, "cuDriverGetVersion");
  BEAST_RESOLVE(DeviceGetCount, "cuDeviceGetCount");
  BEAST_RESOLVE(DeviceGet, "cuDeviceGet");
  BEAST_RESOLVE(DeviceGetName, "cuDeviceGetName");
  BEAST_RESOLVE(DeviceGetAttribute, "cuDeviceGetAttribute");
  BEAST_RESOLVE(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  BEAST_RESOLVE(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  BEAST_RESOLVE(CtxSetCurrent, "cuCtxSetCurrent");
  BEAST_RESOLVE(CtxGetCurrent, "cuCtxGetCurrent");
  BEAST_RESOLVE(MemAlloc, "cuMemAlloc_v2");
  BEAST_RESOLVE(MemFree, "cuMemFree_v2");
  BEAST_RESOLVE(MemcpyHtoD, "cuMemcpyHtoD_v2");
  BEAST_RESOLVE(MemcpyDtoH, "cuMemcpyDtoH_v2");
  BEAST_RESOLVE(ModuleLoadData, "cuModuleLoadData");
  BEAST_RESOLVE(ModuleUnload, "cuModuleUnload");
  BEAST_RESOLVE(ModuleGetFunction, "cuModuleGetFunction");
  BEAST_RESOLVE(FuncSetAttribute, "cuFuncSetAttribute");
  BEAST_RESOLVE(FuncGetAttribute, "cuFuncGetAttribute");
  BEAST_RESOLVE(LaunchKernel, "cuLaunchKernel");
  BEAST_RESOLVE(StreamCreate, "cuStreamCreate");
  BEAST_RESOLVE(StreamDestroy, "cuStreamDestroy_v2");
  BEAST_RESOLVE(StreamSynchronize, "cuStreamSynchronize");
  BEAST_RESOLVE(CtxSynchronize, "cuCtxSynchronize");
  BEAST_RESOLVE(PointerGetAttribute, "cuPointerGetAttribute");
  BEAST_RESOLVE(GetErrorName, "cuGetErrorName");
  if (missing) {
    snprintf(g_driver_error, sizeof g_driver_error, "libcuda.so.1 lacks %s", missing);
    return;
  }
  *(void**)(&g_driver.StreamGetCtx) = dlsym(lib, "cuStreamGetCtx");   /* optional */
  *(void**)(&g_driver.MemAllocAsync) = dlsym(lib, "cuMemAllocAsync"); /* optional */
  *(void**)(&g_driver.MemFreeAsync) = dlsym(lib, "cuMemFreeAsync");   /* optional */
  beast_cu_result r = g_driver.Init(0);
  if (r != 0) {
    snprintf(g_driver_error, sizeof g_driver_error, "cuInit failed: %s", beast_cuda_error_name(r));
    return;
  }
  g_driver_ok = 1;
}

const beast_cuda_driver* beast_cuda_load_driver(const char** why) {
  pthread_once(&g_driver_once, LoadDriver);
  if (!g_driver_ok) {
    if (why) *why = g_driver_error;
    return NULL;
  }
  return &g_driver;
}

const char* beast_cuda_error_name(beast_cu_result r) {
  const char* name = NULL;
  if (g_driver.GetErrorName && g_driver.GetErrorName(r, &name) == 0 && name) return name;
  return "CUDA error";
}

static int Attribute(int attribute, int device) {
  int value = 0;
  if (g_driver.DeviceGetAttribute(&value, attribute, device) != 0) return 0;
  return value;
}

beast_status beast_cuda_context_create(int index, beast_context** ctx) {
  const char* why = NULL;
  if (!beast_cuda_load_driver(&why))
    return beast_fail(BEAST_ERROR_DEVICE, "CUDA device %d: %s", index, why);
  int count = 0;
  g_driver.DeviceGetCount(&count);
  if (index >= count) {
    return beast_fail(BEAST_ERROR_DEVICE, "no CUDA device %d (this machine has %d)", index, count);
  }
  beast_context* c = (beast_context*)calloc(1, sizeof(beast_context));
  beast_cuda* cu = (beast_cuda*)calloc(1, sizeof(beast_cuda));
  if (c) {
    c->backend = BEAST_BACKEND_CUDA;
    c->cuda = cu;
    pthread_mutex_init(&c->mutex, NULL);
  }
  if (!c || !cu) {
    free(cu);
    free(c);
    return beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
  }
  cu->modules =
      (beast_cu_module*)calloc((size_t)beast_cuda_module_count + 1, sizeof(beast_cu_module));
  cu->module_error =
      (beast_cu_result*)calloc((size_t)beast_cuda_module_count + 1, sizeof(beast_cu_result));
  /* The stream is made in the GPU's context; the thread gets its own back. */
  beast_cu_context saved = NULL;
  g_driver.CtxGetCurrent(&saved);
  beast_cu_result r = g_driver.DeviceGet(&cu->device, index);
  if (r == 0) r = g_driver.PrimaryCtxRetain(&cu->context, cu->device);
  if (r == 0) r = g_driver.CtxSetCurrent(cu->context);
  if (r == 0) r = g_driver.StreamCreate(&cu->stream, 0);
  g_driver.CtxSetCurrent(saved);
  if (r == 0 && beast_entry_failures_init(c) != BEAST_OK) r = -1;
  if (r != 0 || !cu->modules || !cu->module_error) {
    beast_cuda_context_destroy(c);
    return beast_fail(BEAST_ERROR_DEVICE, "cannot open CUDA device %d: %s", index,
                      r > 0 ? beast_cuda_error_name(r) : "out of host memory");
  }
  g_driver.DeviceGetName(c->device_name, (int)sizeof c->device_name - 1, cu->device);
  int version = 0;
  g_driver.DriverGetVersion(&version);
  /* As beast records a CUDA device's driver: "12.4". */
  snprintf(c->device_driver, sizeof c->device_driver, "%d.%d", version / 1000,
           (version % 1000) / 10);
  cu->cc = Attribute(BEAST_CU_ATTR_CC_MAJOR, cu->device) * 10 +
           Attribute(BEAST_CU_ATTR_CC_MINOR, cu->device);
  snprintf(cu->arch, sizeof cu->arch, "sm_%d", cu->cc);
  c->max_work_group_size = (size_t)Attribute(BEAST_CU_ATTR_MAX_THREADS_PER_BLOCK, cu->device);
  for (int d = 0; d < 3; ++d) {
    c->max_work_item_sizes[d] = (size_t)Attribute(BEAST_CU_ATTR_MAX_BLOCK_DIM_X + d, cu->device);
  }
  cu->shared_optin = Attribute(BEAST_CU_ATTR_SHARED_OPTIN, cu->device);
  c->local_mem_bytes = (cl_ulong)cu->shared_optin;
  c->cache.directory = "";
  *ctx = c;
  return BEAST_OK;
}

void beast_cuda_context_destroy(beast_context* ctx) {
  beast_cuda* cu = ctx->cuda;
  if (cu && g_driver_ok) {
    /* Module unloads act on the current context: make it this one (on the
     * calling thread, which may be any), then give the thread its own back. */
    beast_cu_context saved = NULL;
    g_driver.CtxGetCurrent(&saved);
    if (cu->context) g_driver.CtxSetCurrent(cu->context);
    if (cu->stream) {
      g_driver.StreamSynchronize(cu->stream);
      g_driver.StreamDestroy(cu->stream);
    }
    for (int i = 0; cu->modules && i < beast_cuda_module_count; ++i) {
      if (cu->modules[i]) g_driver.ModuleUnload(cu->modules[i]);
    }
    if (cu->generic) g_driver.ModuleUnload(cu->generic);
    g_driver.CtxSetCurrent(saved);
    if (cu->context) g_driver.PrimaryCtxRelease(cu->device);
  }
  if (cu) {
    free(cu->modules);
    free(cu->module_error);
    free(cu);
  }
  beast_entry_failures_free(ctx);
  pthread_mutex_destroy(&ctx->mutex);
  free(ctx);
}

/* Which image of module m this GPU runs: 1 the cubin, 2 the PTX, 0 none. */
static int ImageFor(const beast_cuda* cu, const beast_cuda_module* m) {
  if (strcmp(m->arch, cu->arch) == 0) return 1;
  return m->ptx && m->ptx[0] && m->ptx_cc <= cu->cc ? 2 : 0;
}

int beast_cuda_fits(const beast_context* ctx, const beast_entry* e) {
  if (e->program < 0 || e->program >= beast_cuda_module_count) return 0;
  if (!ImageFor(ctx->cuda, &beast_cuda_modules[e->program])) return 0;
  size_t block = e->local[0] * e->local[1] * e->local[2];
  if (block > ctx->max_work_group_size) return 0;
  for (int d = 0; d < 3; ++d) {
    if (e->local[d] > ctx->max_work_item_sizes[d]) return 0;
  }
  return e->dynamic_local_bytes <= (long)ctx->cuda->shared_optin;
}

beast_status beast_cuda_function(beast_context* ctx, const beast_entry* e, const char* name,
                                 beast_cu_function* function) {
  beast_cuda* cu = ctx->cuda;
  beast_status status = BEAST_OK;
  pthread_mutex_lock(&ctx->mutex);
  g_driver.CtxSetCurrent(cu->context);
  beast_cu_module* slot = e ? &cu->modules[e->program] : &cu->generic;
  beast_cu_result* failed = e ? &cu->module_error[e->program] : &cu->generic_error;
  const char* what = e ? e->config_key : "the generic kernels";
  if (*failed) {
    status = beast_fail(
        BEAST_ERROR_BUILD, "%s does not load on %s (%s): %s", what, ctx->device_name, cu->arch,
        *failed > 0 ? beast_cuda_error_name(*failed) : "the library has no PTX for this GPU");
  } else if (!*slot) {
    const void* image = NULL;
    int jit = 1;
    if (e) {
      const beast_cuda_module* m = &beast_cuda_modules[e->program];
      jit = ImageFor(cu, m) == 2;
      image = jit ? (const void*)m->ptx : (const void*)m->cubin;
    } else if (beast_generic_ptx[0] && beast_generic_ptx_cc <= cu->cc) {
      image = beast_generic_ptx;
    }
    beast_cu_result r = image ? g_driver.ModuleLoadData(slot, image) : -1;
    if (r != 0) {
      *slot = NULL;
      /* Out of memory (2) passes: the module is tried again next time. */
      const int lasting = r != 2;
      if (lasting) *failed = image ? r : -1;
      status = beast_fail(lasting ? BEAST_ERROR_BUILD : BEAST_ERROR_DEVICE,
                          "%s does not load on %s (%s): %s", what, ctx->device_name, cu->arch,
                          image ? beast_cuda_error_name(r) : "the library has no PTX for this GPU");
    } else if (jit) {
      ++ctx->cache.programs_built;
    } else {
      ++ctx->cache.programs_loaded;
    }
  }
  if (status == BEAST_OK) {
    beast_cu_result r = g_driver.ModuleGetFunction(function, *slot, name);
    if (r != 0)
      status = beast_fail(BEAST_ERROR_BUILD, "kernel %s is missing from its module: %s", name,
                          beast_cuda_error_name(r));
  }
  pthread_mutex_unlock(&ctx->mutex);
  return status;
}

beast_status beast_context_cuda(beast_context* ctx, void** cu_context, int* cu_device,
                                void** cu_stream) {
  beast_clear_error();
  if (!ctx) return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_context_cuda: ctx is NULL");
  if (ctx->backend != BEAST_BACKEND_CUDA) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_context_cuda: %s is not a CUDA context",
                      ctx->device_name);
  }
  if (cu_context) *cu_context = ctx->cuda->context;
  if (cu_device) *cu_device = ctx->cuda->device;
  if (cu_stream) *cu_stream = ctx->cuda->stream;
  return BEAST_OK;
}
