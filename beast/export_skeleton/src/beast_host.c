/* beast_host.c: the host-memory entry points, thin wrappers over the device
 * API (beast_launch.c): each copies its inputs into buffers of the context,
 * runs the device call on the context's own queue, waited for (so a tuned
 * kernel that fails on the device is passed over for one that works), and
 * reads the output back. Buffers are per call, so calls may come from any thread. */
#include <stdint.h>

#include "beast_runtime.h"

/* Buffers for the n arrays of a call, the last one the output; a NULL input
 * (no bias) gets no buffer. */
static beast_status Upload(beast_context* ctx, const char* fn, const void* const* data,
                           const size_t* bytes, int n, cl_mem* mem) {
  cl_int err = CL_SUCCESS;
  size_t total = 0;
  for (int i = 0; i < n; ++i) mem[i] = NULL;
  for (int i = 0; i < n && err == CL_SUCCESS; ++i) {
    total += bytes[i];
    if (i == n - 1) {
      mem[i] = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, bytes[i], NULL, &err);
    } else if (data[i]) {
      mem[i] = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes[i],
                              (void*)(uintptr_t)data[i], &err);
    }
  }
  if (err != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_DEVICE,
                      "%s: %s cannot allocate %zu bytes in %d buffers (error %d)", fn,
                      ctx->device_name, total, n, (int)err);
  }
  return BEAST_OK;
}

/* After the device call `status`: reads the output (the last buffer) into
 * out, and releases every buffer. A kernel that failed on the device
 * surfaces at this blocking read. */
static beast_status Download(beast_context* ctx, const char* fn, beast_status status, cl_mem* mem,
                             int n, void* out, size_t out_bytes) {
  if (status == BEAST_OK) {
    cl_int err =
        clEnqueueReadBuffer(ctx->queue, mem[n - 1], CL_TRUE, 0, out_bytes, out, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
      status = beast_fail(BEAST_ERROR_LAUNCH, "%s: the kernel failed on %s (error %d)", fn,
                          ctx->device_name, (int)err);
    }
  }
  for (int i = 0; i < n; ++i) {
    if (mem[i]) clReleaseMemObject(mem[i]);
  }
  return status;
}

/* The device calls on a CUDA context's buffers (beast_cuda_host_call), on
 * its own stream, waited for. */
static void* Ptr(beast_cu_ptr p) { return p ? (void*)(size_t)p : NULL; }

static beast_status CudaConv2d(beast_context* ctx, const void* problem, beast_cu_ptr* mem) {
  return beast_conv2d_forward(ctx, (const beast_conv2d_problem*)problem, Ptr(mem[0]), Ptr(mem[1]),
                              Ptr(mem[2]), Ptr(mem[3]), NULL);
}

static beast_status CudaGemm(beast_context* ctx, const void* problem, beast_cu_ptr* mem) {
  return beast_gemm(ctx, (const beast_gemm_problem*)problem, Ptr(mem[0]), Ptr(mem[1]), Ptr(mem[2]),
                    NULL);
}

beast_status beast_conv2d_forward_host(beast_context* ctx, const beast_conv2d_problem* problem,
                                       const void* x, const void* w, const void* bias, void* y) {
  static const char kFn[] = "beast_conv2d_forward_host";
  beast_clear_error();
  if (!ctx || !problem || !x || !w || !y) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: a NULL argument", kFn);
  }
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_conv2d_call_shape(kFn, problem, bias, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  size_t bytes[4];
  beast_conv2d_bytes(problem, bytes);
  const void* const data[4] = {x, w, bias, NULL};
  if (ctx->backend == BEAST_BACKEND_CUDA)
    return beast_cuda_host_call(ctx, kFn, problem, data, bytes, 4, y, CudaConv2d);
  cl_mem mem[4];
  status = Upload(ctx, kFn, data, bytes, 4, mem);
  if (status == BEAST_OK) {
    status = beast_conv2d_forward(ctx, problem, mem[0], mem[1], mem[2], mem[3], NULL);
  }
  return Download(ctx, kFn, status, mem, 4, y, bytes[3]);
}

beast_status beast_gemm_host(beast_context* ctx, const beast_gemm_problem* problem, const void* a,
                             const void* b, void* c) {
  static const char kFn[] = "beast_gemm_host";
  beast_clear_error();
  if (!ctx || !problem || !a || !b || !c) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: a NULL argument", kFn);
  }
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_gemm_shape(problem, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  size_t bytes[3];
  beast_gemm_bytes(problem, bytes);
  const void* const data[3] = {a, b, NULL};
  if (ctx->backend == BEAST_BACKEND_CUDA)
    return beast_cuda_host_call(ctx, kFn, problem, data, bytes, 3, c, CudaGemm);
  cl_mem mem[3];
  status = Upload(ctx, kFn, data, bytes, 3, mem);
  if (status == BEAST_OK) status = beast_gemm(ctx, problem, mem[0], mem[1], mem[2], NULL);
  return Download(ctx, kFn, status, mem, 3, c, bytes[2]);
}
