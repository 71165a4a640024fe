/* beast_launch.c: the host-memory entry points. Each call copies its inputs to
 * device buffers, launches the selected entry's kernel with its tuned
 * geometry (or, for a shape nobody tuned, the generic kernel) and reads the
 * output back; kernels and buffers are per call, so calls on one context may
 * run from several threads. */
#include <stdint.h>
#include <stdio.h>

#include "beast_runtime.h"

typedef struct HostBuffer {
  const void* data;
  size_t bytes;
} HostBuffer;

/* A kernel to launch: its geometry and the int arguments after the buffers. */
typedef struct Launch {
  cl_kernel kernel;
  const char* what; /* for messages: "conv2d/direct_nchw (KWI=4,...)" */
  cl_uint dims;
  size_t global[3];
  const size_t* local; /* NULL: the implementation chooses */
  const int* ints;
  int n_ints;
} Launch;

/* Runs the kernel with the inputs in order, then the output, then the ints:
 * the kernel contract of beast is conv2d (x, w, y) or (x, w, b, y), gemm
 * (A, B, C); the generic kernels add the shape. */
#define MAX_INPUTS 3
static beast_status RunKernel(beast_context* ctx, const Launch* k, const HostBuffer* in, int n_in,
                              float* out, size_t out_bytes) {
  beast_status status = BEAST_OK;
  cl_int err = CL_SUCCESS;
  cl_mem buffers[MAX_INPUTS + 1] = {NULL, NULL, NULL, NULL};
  const int n_buffers = n_in + 1;
  const cl_mem_flags in_flags = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  size_t total_bytes = out_bytes;
  for (int i = 0; i < n_in && err == CL_SUCCESS; ++i) {
    total_bytes += in[i].bytes;
    buffers[i] =
        clCreateBuffer(ctx->context, in_flags, in[i].bytes, (void*)(uintptr_t)in[i].data, &err);
  }
  if (err == CL_SUCCESS) {
    buffers[n_in] = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, out_bytes, NULL, &err);
  }
  if (err != CL_SUCCESS) {
    status = beast_fail(BEAST_ERROR_DEVICE, "%s cannot allocate %zu bytes in %d buffers (error %d)",
                        ctx->device_name, total_bytes, n_buffers, (int)err);
  }
  for (cl_uint i = 0; i < (cl_uint)(n_buffers + k->n_ints) && status == BEAST_OK; ++i) {
    err = (int)i < n_buffers
              ? clSetKernelArg(k->kernel, i, sizeof(cl_mem), &buffers[i])
              : clSetKernelArg(k->kernel, i, sizeof(cl_int), &k->ints[(int)i - n_buffers]);
    if (err != CL_SUCCESS) {
      status = beast_fail(BEAST_ERROR_LAUNCH, "kernel %s rejects argument %u (error %d)", k->what,
                          (unsigned)i, (int)err);
    }
  }
  if (status == BEAST_OK) {
    err = clEnqueueNDRangeKernel(ctx->queue, k->kernel, k->dims, NULL, k->global, k->local, 0,
                                 NULL, NULL);
    if (err != CL_SUCCESS) {
      status = beast_fail(BEAST_ERROR_LAUNCH,
                          "%s refused kernel %s with global %zux%zux%zu (error %d)",
                          ctx->device_name, k->what, k->global[0], k->global[1], k->global[2],
                          (int)err);
    }
  }
  if (status == BEAST_OK) {
    /* A kernel that fails on the device surfaces here, at the blocking read. */
    err = clEnqueueReadBuffer(ctx->queue, buffers[n_in], CL_TRUE, 0, out_bytes, out, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS) {
      status = beast_fail(BEAST_ERROR_LAUNCH, "kernel %s failed on %s (error %d)", k->what,
                          ctx->device_name, (int)err);
    }
  }
  for (int i = 0; i < n_buffers; ++i) {
    if (buffers[i]) clReleaseMemObject(buffers[i]);
  }
  return status;
}

/* Runs a tuned entry with its tuned geometry. */
static beast_status RunEntry(beast_context* ctx, const beast_entry* e, const HostBuffer* in,
                             int n_in, float* out, size_t out_bytes) {
  cl_program program = NULL;
  beast_status status = beast_program(ctx, e, &program);
  if (status != BEAST_OK) return status;
  cl_int err = CL_SUCCESS;
  Launch k = {NULL, NULL, 3, {e->global[0], e->global[1], e->global[2]}, e->local, NULL, 0};
  k.kernel = clCreateKernel(program, e->kernel_name, &err);
  if (err != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_BUILD, "kernel %s of %s is missing from its program (error %d)",
                      e->kernel_name, e->template_name, (int)err);
  }
  char what[512];
  snprintf(what, sizeof what, "%s (%s, %s)", e->kernel_name, e->template_name, e->config_key);
  k.what = what;
  status = RunKernel(ctx, &k, in, n_in, out, out_bytes);
  clReleaseKernel(k.kernel);
  return status;
}

/* Runs the generic fallback kernel `name` over `outputs` work-items. The
 * failure to find a tuned entry that the dispatcher recorded is cleared: the
 * call succeeds, and beast_explain tells why the generic kernel ran. */
static beast_status RunGeneric(beast_context* ctx, const char* name, const int* ints, int n_ints,
                               const HostBuffer* in, int n_in, float* out, size_t outputs) {
  beast_clear_error();
  cl_program program = NULL;
  beast_status status = beast_generic_program(ctx, &program);
  if (status != BEAST_OK) return status;
  cl_int err = CL_SUCCESS;
  Launch k = {NULL, name, 1, {outputs, 1, 1}, NULL, ints, n_ints};
  k.kernel = clCreateKernel(program, name, &err);
  if (err != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_BUILD, "generic kernel %s is missing (error %d)", name, (int)err);
  }
  status = RunKernel(ctx, &k, in, n_in, out, outputs * sizeof(float));
  clReleaseKernel(k.kernel);
  return status;
}

beast_status beast_conv2d_forward_host(beast_context* ctx, const beast_conv2d_problem* problem,
                                       const float* x, const float* w, const float* bias,
                                       float* y) {
  beast_clear_error();
  if (!ctx || !problem || !x || !w || !y) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_conv2d_forward_host: a NULL argument");
  }
  if ((problem->bias == 1) != (bias != NULL)) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "beast_conv2d_forward_host: problem->bias is %d but bias is %s",
                      problem->bias, bias ? "given" : "NULL");
  }
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_conv2d_shape(problem, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  const beast_entry* e = beast_select(ctx, BEAST_OP_CONV2D, shape, key);
  const beast_conv2d_problem* p = problem;
  size_t out_h = (size_t)((p->h + 2 * p->pad_h - p->dilation_h * (p->r - 1) - 1) / p->stride_h + 1);
  size_t out_w = (size_t)((p->w + 2 * p->pad_w - p->dilation_w * (p->s - 1) - 1) / p->stride_w + 1);
  HostBuffer in[MAX_INPUTS] = {
      {x, sizeof(float) * (size_t)p->n * (size_t)p->c * (size_t)p->h * (size_t)p->w},
      {w, sizeof(float) * (size_t)p->k * (size_t)(p->c / p->groups) * (size_t)p->r * (size_t)p->s},
      {bias, sizeof(float) * (size_t)p->k}};
  size_t outputs = (size_t)p->n * (size_t)p->k * out_h * out_w;
  if (e) return RunEntry(ctx, e, in, p->bias ? 3 : 2, y, outputs * sizeof(float));
  /* The generic kernel always takes a bias buffer; a zero stands in. */
  static const float kNoBias = 0;
  if (!p->bias) in[2] = (HostBuffer){&kNoBias, sizeof kNoBias};
  const int ints[] = {p->n,        p->c,          p->h,       p->w,         p->k,
                      p->r,        p->s,          (int)out_h, (int)out_w,   p->stride_h,
                      p->stride_w, p->pad_h,      p->pad_w,   p->dilation_h, p->dilation_w,
                      p->groups,   p->layout == BEAST_LAYOUT_NHWC, p->bias};
  return RunGeneric(ctx, "beast_generic_conv2d", ints, (int)(sizeof ints / sizeof ints[0]), in, 3,
                    y, outputs);
}

beast_status beast_gemm_host(beast_context* ctx, const beast_gemm_problem* problem, const float* a,
                             const float* b, float* c) {
  beast_clear_error();
  if (!ctx || !problem || !a || !b || !c) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_gemm_host: a NULL argument");
  }
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_gemm_shape(problem, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  const beast_entry* e = beast_select(ctx, BEAST_OP_GEMM, shape, key);
  const beast_gemm_problem* p = problem;
  HostBuffer in[2] = {{a, sizeof(float) * (size_t)p->m * (size_t)p->k},
                      {b, sizeof(float) * (size_t)p->k * (size_t)p->n}};
  size_t outputs = (size_t)p->m * (size_t)p->n;
  if (e) return RunEntry(ctx, e, in, 2, c, outputs * sizeof(float));
  const int ints[] = {p->m, p->n, p->k, p->trans_a, p->trans_b, p->col_major};
  return RunGeneric(ctx, "beast_generic_gemm", ints, 6, in, 2, c, outputs);
}
