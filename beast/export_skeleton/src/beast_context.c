/* beast_context.c: opening an OpenCL device as beast numbers it (or wrapping
 * a caller's context), and the per-context table of built programs: each
 * tuned program is built once per context, on first use, under the context's
 * mutex, through the disk cache (beast_program_cache.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beast_runtime.h"

/* Finds device `index` counting every platform's devices in platform order. */
static beast_status FindDevice(int index, cl_device_id* found) {
  cl_uint platform_count = 0;
  if (clGetPlatformIDs(0, NULL, &platform_count) != CL_SUCCESS || platform_count == 0) {
    return beast_fail(BEAST_ERROR_DEVICE, "no OpenCL platform is installed");
  }
  cl_platform_id* platforms = (cl_platform_id*)calloc(platform_count, sizeof(cl_platform_id));
  if (!platforms) return beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
  if (clGetPlatformIDs(platform_count, platforms, NULL) != CL_SUCCESS) platform_count = 0;
  int seen = 0;
  beast_status status = BEAST_ERROR_DEVICE;
  for (cl_uint p = 0; p < platform_count && status != BEAST_OK; ++p) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &count) != CL_SUCCESS) continue;
    if (index < seen + (int)count) {
      cl_device_id* ids = (cl_device_id*)calloc(count, sizeof(cl_device_id));
      if (ids && clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, count, ids, NULL) == CL_SUCCESS) {
        *found = ids[index - seen];
        status = BEAST_OK;
      }
      free(ids);
      if (status != BEAST_OK) break;
    }
    seen += (int)count;
  }
  free(platforms);
  if (status != BEAST_OK) {
    return beast_fail(BEAST_ERROR_DEVICE, "no OpenCL device %d (this machine has %d)", index, seen);
  }
  return BEAST_OK;
}

/* Trailing spaces dropped, as the tuner records the name and driver (some
 * drivers pad CL_DEVICE_NAME): the dispatch table compares them exactly. */
static void QueryText(cl_device_id device, cl_device_info what, char* text, size_t len) {
  if (clGetDeviceInfo(device, what, len, text, NULL) != CL_SUCCESS) text[0] = '\0';
  text[len - 1] = '\0';
  for (size_t n = strlen(text); n > 0 && text[n - 1] == ' '; --n) text[n - 1] = '\0';
}

/* A context on `device`: `context` when given (retained), else a new one;
 * plus beast's own in-order queue. */
static beast_status Open(cl_device_id device, cl_context context, const char* what,
                         beast_context** ctx) {
  beast_context* c = (beast_context*)calloc(1, sizeof(beast_context));
  if (!c) return beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
  pthread_mutex_init(&c->mutex, NULL);
  beast_workspace_cache_init(c);
  c->programs = (cl_program*)calloc((size_t)beast_program_count, sizeof(cl_program));
  c->build_failure = (char**)calloc((size_t)beast_program_count + 1, sizeof(char*));
  if (!c->programs || !c->build_failure || beast_entry_failures_init(c) != BEAST_OK) {
    beast_context_destroy(c);
    return beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
  }
  c->device = device;
  QueryText(device, CL_DEVICE_NAME, c->device_name, sizeof c->device_name);
  QueryText(device, CL_DRIVER_VERSION, c->device_driver, sizeof c->device_driver);
  cl_platform_id platform = NULL;
  c->platform_version[0] = '\0';
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) == CL_SUCCESS &&
      clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof c->platform_version,
                        c->platform_version, NULL) != CL_SUCCESS) {
    c->platform_version[0] = '\0';
  }
  c->platform_version[sizeof c->platform_version - 1] = '\0';
  beast_cache_folder(c->cache_dir, sizeof c->cache_dir);
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), &c->max_work_group_size,
                  NULL);
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof c->max_work_item_sizes,
                  c->max_work_item_sizes, NULL);
  clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof c->local_mem_bytes, &c->local_mem_bytes,
                  NULL);
  cl_device_fp_config double_config = 0;
  clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof double_config, &double_config, NULL);
  c->fp64 = double_config != 0;
  cl_int err = CL_SUCCESS;
  if (context) {
    err = clRetainContext(context);
    if (err == CL_SUCCESS) c->context = context;
  } else {
    c->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  }
  if (err == CL_SUCCESS) c->queue = clCreateCommandQueue(c->context, device, 0, &err);
  if (err != CL_SUCCESS) {
    beast_context_destroy(c);
    return beast_fail(BEAST_ERROR_DEVICE, "cannot open %s (error %d)", what, (int)err);
  }
  *ctx = c;
  return BEAST_OK;
}

beast_status beast_context_create(beast_backend backend, int device_index, beast_context** ctx) {
  beast_clear_error();
  if (!ctx) return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_context_create: ctx is NULL");
  *ctx = NULL;
  if (backend != BEAST_BACKEND_OPENCL && backend != BEAST_BACKEND_CUDA) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "unknown backend %d (OpenCL 0, CUDA 1)",
                      (int)backend);
  }
  if (device_index < 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "device index %d is negative", device_index);
  }
  if (backend == BEAST_BACKEND_CUDA) return beast_cuda_context_create(device_index, ctx);
  cl_device_id device = NULL;
  beast_status status = FindDevice(device_index, &device);
  if (status != BEAST_OK) return status;
  char what[64];
  snprintf(what, sizeof what, "OpenCL device %d", device_index);
  return Open(device, NULL, what, ctx);
}

beast_status beast_context_create_opencl(void* cl_context_handle, void* cl_device_handle,
                                         beast_context** ctx) {
  beast_clear_error();
  if (!ctx || !cl_context_handle || !cl_device_handle) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_context_create_opencl: a NULL argument");
  }
  *ctx = NULL;
  cl_context context = (cl_context)cl_context_handle;
  cl_device_id device = (cl_device_id)cl_device_handle;
  /* The device must be one of the context's, or every build would fail later. */
  cl_uint count = 0;
  if (clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, NULL) != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "beast_context_create_opencl: not a valid cl_context");
  }
  cl_device_id* devices = (cl_device_id*)calloc(count ? count : 1, sizeof(cl_device_id));
  if (!devices) return beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
  int found = 0;
  if (clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id), devices, NULL) ==
      CL_SUCCESS) {
    for (cl_uint i = 0; i < count; ++i) found |= devices[i] == device;
  }
  free(devices);
  if (!found) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "beast_context_create_opencl: the device is not one of the context's");
  }
  return Open(device, context, "the given OpenCL context", ctx);
}

beast_status beast_context_opencl(beast_context* ctx, void** cl_context_handle,
                                  void** cl_device_handle, void** cl_queue_handle) {
  beast_clear_error();
  if (!ctx) return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_context_opencl: ctx is NULL");
  if (ctx->backend != BEAST_BACKEND_OPENCL) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_context_opencl: %s is a CUDA context",
                      ctx->device_name);
  }
  if (cl_context_handle) *cl_context_handle = ctx->context;
  if (cl_device_handle) *cl_device_handle = ctx->device;
  if (cl_queue_handle) *cl_queue_handle = ctx->queue;
  return BEAST_OK;
}

void beast_context_destroy(beast_context* ctx) {
  if (!ctx) return;
  if (ctx->backend == BEAST_BACKEND_CUDA) {
    beast_cuda_context_destroy(ctx);
    return;
  }
  for (int i = 0; ctx->programs && i < beast_program_count; ++i) {
    if (ctx->programs[i]) clReleaseProgram(ctx->programs[i]);
  }
  if (ctx->generic_program) clReleaseProgram(ctx->generic_program);
  beast_workspace_cache_free(ctx);
  if (ctx->queue) {
    clFinish(ctx->queue);
    clReleaseCommandQueue(ctx->queue);
  }
  if (ctx->context) clReleaseContext(ctx->context);
  free(ctx->programs);
  for (int i = 0; ctx->build_failure && i < beast_program_count; ++i) free(ctx->build_failure[i]);
  free(ctx->build_failure);
  beast_entry_failures_free(ctx);
  pthread_mutex_destroy(&ctx->mutex);
  free(ctx);
}

beast_status beast_program(beast_context* ctx, const beast_entry* entry, cl_program* program) {
  beast_status status = BEAST_OK;
  pthread_mutex_lock(&ctx->mutex);
  cl_program* slot = &ctx->programs[entry->program];
  char** failure = &ctx->build_failure[entry->program];
  if (*failure) {
    status = beast_fail(BEAST_ERROR_BUILD, "%s", *failure); /* as the first caller was told */
  } else if (!*slot) {
    char line[512];
    /* The options beast tuned with (none), so the binary is the one measured. */
    cl_int err = beast_build_program(ctx, beast_program_sources[entry->program], "", slot, line,
                                     sizeof line);
    if (err != CL_SUCCESS) {
      status =
          beast_fail(beast_build_failure(err), "%s (%s) does not build on %s (error %d): %s",
                     entry->template_name, entry->config_key, ctx->device_name, (int)err, line);
      /* Out of memory is no verdict on the source: the next call builds again. */
      if (status == BEAST_ERROR_BUILD) {
        const char* why = beast_last_error();
        *failure = (char*)malloc(strlen(why) + 1);
        if (*failure) strcpy(*failure, why); /* without memory it is built again next time */
      }
    }
  }
  *program = *slot;
  pthread_mutex_unlock(&ctx->mutex);
  return status;
}
