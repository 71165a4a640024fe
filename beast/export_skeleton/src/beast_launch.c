/* beast_launch.c: the host-memory entry points. Each call copies its inputs to
 * device buffers, launches the selected entry's kernel with its tuned
 * geometry and reads the output back; kernels and buffers are per call, so
 * calls on one context may run from several threads. */
#include <stdint.h>

#include "beast_runtime.h"

typedef struct HostBuffer {
  const void* data;
  size_t bytes;
} HostBuffer;

/* Runs entry's kernel with the inputs in order, then the output: the kernel
 * contract of beast is conv2d (x, w, y) or (x, w, b, y), gemm (A, B, C). */
#define MAX_INPUTS 3
static beast_status Run(beast_context* ctx, const beast_entry* e, const HostBuffer* in, int n_in,
                        float* out, size_t out_bytes) {
  cl_program program = NULL;
  beast_status status = beast_program(ctx, e, &program);
  if (status != BEAST_OK) return status;
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, e->kernel_name, &err);
  if (err != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_BUILD, "kernel %s of %s is missing from its program (error %d)",
                      e->kernel_name, e->template_name, (int)err);
  }
  cl_mem buffers[MAX_INPUTS + 1] = {NULL, NULL, NULL, NULL};
  const int n_args = n_in + 1;
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
                        ctx->device_name, total_bytes, n_args, (int)err);
  }
  for (cl_uint i = 0; i < (cl_uint)n_args && status == BEAST_OK; ++i) {
    err = clSetKernelArg(kernel, i, sizeof(cl_mem), &buffers[i]);
    if (err != CL_SUCCESS) {
      status = beast_fail(BEAST_ERROR_LAUNCH, "kernel %s rejects argument %u (error %d)",
                          e->kernel_name, (unsigned)i, (int)err);
    }
  }
  if (status == BEAST_OK) {
    err = clEnqueueNDRangeKernel(ctx->queue, kernel, 3, NULL, e->global, e->local, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
      status =
          beast_fail(BEAST_ERROR_LAUNCH,
                     "%s refused kernel %s (%s) with global %zux%zux%zu local %zux%zux%zu "
                     "(error %d)",
                     ctx->device_name, e->kernel_name, e->config_key, e->global[0], e->global[1],
                     e->global[2], e->local[0], e->local[1], e->local[2], (int)err);
    }
  }
  if (status == BEAST_OK) {
    /* A kernel that fails on the device surfaces here, at the blocking read. */
    err = clEnqueueReadBuffer(ctx->queue, buffers[n_in], CL_TRUE, 0, out_bytes, out, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS) {
      status = beast_fail(BEAST_ERROR_LAUNCH, "kernel %s (%s) failed on %s (error %d)",
                          e->kernel_name, e->config_key, ctx->device_name, (int)err);
    }
  }
  for (int i = 0; i < n_args; ++i) {
    if (buffers[i]) clReleaseMemObject(buffers[i]);
  }
  clReleaseKernel(kernel);
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
  if (!e) return BEAST_ERROR_NOT_TUNED;
  const beast_conv2d_problem* p = problem;
  size_t out_h = (size_t)((p->h + 2 * p->pad_h - p->dilation_h * (p->r - 1) - 1) / p->stride_h + 1);
  size_t out_w = (size_t)((p->w + 2 * p->pad_w - p->dilation_w * (p->s - 1) - 1) / p->stride_w + 1);
  HostBuffer in[MAX_INPUTS] = {
      {x, sizeof(float) * (size_t)p->n * (size_t)p->c * (size_t)p->h * (size_t)p->w},
      {w, sizeof(float) * (size_t)p->k * (size_t)(p->c / p->groups) * (size_t)p->r * (size_t)p->s},
      {bias, sizeof(float) * (size_t)p->k}};
  size_t y_bytes = sizeof(float) * (size_t)p->n * (size_t)p->k * out_h * out_w;
  return Run(ctx, e, in, p->bias ? 3 : 2, y, y_bytes);
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
  if (!e) return BEAST_ERROR_NOT_TUNED;
  HostBuffer in[2] = {{a, sizeof(float) * (size_t)problem->m * (size_t)problem->k},
                      {b, sizeof(float) * (size_t)problem->k * (size_t)problem->n}};
  return Run(ctx, e, in, 2, c, sizeof(float) * (size_t)problem->m * (size_t)problem->n);
}
