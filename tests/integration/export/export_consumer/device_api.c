/* device_api.c: the device-buffer API the way a framework uses it — on the
 * consumer's own OpenCL context, queue and buffers, wrapped with
 * beast_context_create_opencl — for tuned and untuned shapes, asynchronous on
 * the caller's queue and blocking on beast's own; and the mistakes it must
 * refuse (a buffer too small, a queue or buffer of another context). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

/* The first OpenCL device over all platforms: beast's device index 0. */
static cl_device_id FirstDevice(void) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS) return NULL;
  for (cl_uint p = 0; p < count && p < 16; ++p) {
    cl_device_id device = NULL;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS) {
      return device;
    }
  }
  return NULL;
}

/* A buffer of `count` floats holding `data` (NaN everywhere when data is NULL,
 * so every output must be written); NULL when count is 0. */
static cl_mem Buffer(cl_context context, cl_command_queue queue, const float* data, size_t count) {
  if (count == 0) return NULL;
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, count * sizeof(float), NULL, &err);
  if (err != CL_SUCCESS) return NULL;
  float* fill = NULL;
  if (!data) {
    fill = (float*)malloc(count * sizeof(float));
    for (size_t i = 0; i < count; ++i) fill[i] = NAN;
  }
  clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0, count * sizeof(float), data ? data : fill, 0, NULL,
                       NULL);
  free(fill);
  return mem;
}

static float* Read(cl_command_queue queue, cl_mem mem, size_t count) {
  float* out = (float*)malloc(count * sizeof(float));
  for (size_t i = 0; i < count; ++i) out[i] = NAN;
  clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, count * sizeof(float), out, 0, NULL, NULL);
  return out;
}

/* queue: the caller's (asynchronous), or NULL: beast's own (blocking). */
static void RunConv(beast_context* ctx, cl_context context, cl_command_queue queue,
                    cl_command_queue use, beast_conv2d_problem p, uint64_t seed, const char* what) {
  ConvCase t = MakeConvCase(p, seed);
  cl_mem x = Buffer(context, queue, t.x, t.x_count), w = Buffer(context, queue, t.w, t.w_count);
  cl_mem b = Buffer(context, queue, t.b, p.bias ? (size_t)p.k : 0);
  cl_mem y = Buffer(context, queue, NULL, t.y_count);
  beast_status s = beast_conv2d_forward(ctx, &p, x, w, b, y, use);
  float* out = Read(queue, y, t.y_count);
  CheckOutput(what, s, out, t.ref, t.bound, t.y_count);
  free(out);
  clReleaseMemObject(x), clReleaseMemObject(w), clReleaseMemObject(y);
  if (b) clReleaseMemObject(b);
  FreeConvCase(&t);
}

static void RunGemm(beast_context* ctx, cl_context context, cl_command_queue queue,
                    cl_command_queue use, beast_gemm_problem p, uint64_t seed, const char* what) {
  GemmCase t = MakeGemmCase(p, seed);
  cl_mem a = Buffer(context, queue, t.a, t.a_count), b = Buffer(context, queue, t.b, t.b_count);
  cl_mem c = Buffer(context, queue, NULL, t.c_count);
  beast_status s = beast_gemm(ctx, &p, a, b, c, use);
  float* out = Read(queue, c, t.c_count);
  CheckOutput(what, s, out, t.ref, t.bound, t.c_count);
  free(out);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
  FreeGemmCase(&t);
}

/* Calls that must be refused with INVALID_ARGUMENT and a message naming `needle`. */
static void CheckRefused(beast_status s, const char* what, const char* needle) {
  char detail[1200];
  snprintf(detail, sizeof detail, "status %d: %s", (int)s, beast_last_error());
  Report(s == BEAST_ERROR_INVALID_ARGUMENT && strstr(beast_last_error(), needle) != NULL, what,
         detail);
}

static void CheckMisuse(beast_context* ctx, cl_context context, cl_command_queue queue) {
  const beast_gemm_problem p = {64, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
  cl_mem a = Buffer(context, queue, NULL, 64 * 40), b = Buffer(context, queue, NULL, 40 * 48);
  cl_mem small = Buffer(context, queue, NULL, 64 * 48 - 1);
  CheckRefused(beast_gemm(ctx, &p, a, b, small, queue), "device api: c one float short",
               "beast_gemm: c holds 12284 bytes, the problem needs 12288");
  beast_context* other = NULL;
  void* other_queue = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &other) == BEAST_OK &&
      beast_context_opencl(other, NULL, NULL, &other_queue) == BEAST_OK) {
    CheckRefused(beast_gemm(ctx, &p, a, b, small, other_queue), "device api: foreign queue",
                 "queue belongs to another cl_context");
    CheckRefused(beast_gemm(other, &p, a, b, small, NULL), "device api: foreign buffer",
                 "beast_gemm: a belongs to another cl_context");
  } else {
    Report(0, "device api: a second context", beast_last_error());
  }
  beast_context_destroy(other);
  const beast_conv2d_problem c = {
      1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0};
  CheckRefused(beast_conv2d_forward(ctx, &c, a, b, small, small, NULL),
               "device api: bias given to a problem without",
               "problem->bias is 0 but bias is given");
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(small);
}

void CheckDeviceApi(void) {
  cl_device_id device = FirstDevice();
  cl_int err = CL_SUCCESS;
  cl_context context = device ? clCreateContext(NULL, 1, &device, NULL, NULL, &err) : NULL;
  cl_command_queue queue = context ? clCreateCommandQueue(context, device, 0, &err) : NULL;
  beast_context* ctx = NULL;
  beast_status s = queue ? beast_context_create_opencl(context, device, &ctx) : BEAST_ERROR_DEVICE;
  Report(s == BEAST_OK, "device api: wrap the consumer's own cl_context",
         s == BEAST_OK ? "" : beast_last_error());
  if (s == BEAST_OK) {
    void* got_context = NULL;
    beast_context_opencl(ctx, &got_context, NULL, NULL);
    Report(got_context == (void*)context, "device api: beast_context_opencl gives it back", "");

    const beast_gemm_problem g1 = {64, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
    const beast_gemm_problem g4 = {33, 17, 29, 1, 0, BEAST_DTYPE_F32, 1};
    const beast_gemm_problem untuned = {65, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
    const beast_conv2d_problem c2 = {
        2, 4, 9, 7, 6, 3, 2, 1, 2, 2, 0, 2, 2, 2, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 1};
    beast_conv2d_problem c3 = {
        1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NHWC, BEAST_DTYPE_F32, 0};
    RunGemm(ctx, context, queue, queue, g1, 301, "device api: tuned gemm on the caller's queue");
    RunGemm(ctx, context, queue, NULL, g4, 311, "device api: tuned col-major gemm, beast's queue");
    RunGemm(ctx, context, queue, queue, untuned, 321, "device api: untuned gemm (generic)");
    RunConv(ctx, context, queue, queue, c2, 331, "device api: tuned conv2d with bias");
    RunConv(ctx, context, queue, NULL, c3, 341, "device api: untuned NHWC conv2d, beast's queue");
    CheckMisuse(ctx, context, queue);
    CountCache(ctx);
  }
  beast_context_destroy(ctx);
  if (queue) clReleaseCommandQueue(queue);
  if (context) clReleaseContext(context);
}
