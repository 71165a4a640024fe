/* Times plain beast_conv2d_forward calls of an exported library whose
 * entry needs a workspace (tests/bench/export_workspace.sh builds it on a
 * conv2d/winograd_split export): in each round, CALLS calls with the
 * workspace the context keeps, and CALLS calls with the workspace released
 * before each (so each allocates its own, as every call did before the
 * context kept one). Prints the median per call of each, over ROUNDS
 * interleaved rounds, and their ratio. Usage: workspace_calls N C HW K
 * [ROUNDS] [CALLS] (a 3x3 conv with padding 1, NCHW, f32). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "beast_tuned.h"

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int Compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static cl_mem Filled(cl_context context, cl_command_queue queue, size_t n) {
  float* data = (float*)malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) data[i] = (float)((i * 7 % 23) - 11) / 16.0f;
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  if (err == CL_SUCCESS)
    clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0, n * sizeof(float), data, 0, NULL, NULL);
  free(data);
  return err == CL_SUCCESS ? mem : NULL;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s N C HW K [ROUNDS] [CALLS]\n", argv[0]);
    return 2;
  }
  const int n = atoi(argv[1]), c = atoi(argv[2]), hw = atoi(argv[3]), k = atoi(argv[4]);
  const int rounds = argc > 5 ? atoi(argv[5]) : 7, calls = argc > 6 ? atoi(argv[6]) : 10;
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    fprintf(stderr, "%s\n", beast_last_error());
    return 1;
  }
  void *context = NULL, *queue = NULL;
  beast_context_opencl(ctx, &context, NULL, &queue);
  cl_mem x = Filled((cl_context)context, (cl_command_queue)queue, (size_t)n * c * hw * hw);
  cl_mem w = Filled((cl_context)context, (cl_command_queue)queue, (size_t)k * c * 9);
  cl_mem y = Filled((cl_context)context, (cl_command_queue)queue, (size_t)n * k * hw * hw);
  const beast_conv2d_problem problem = {
      n, c, hw, hw, k, 3, 3, 1, 1, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0};
  char why[1024];
  beast_explain_conv2d(ctx, &problem, why, sizeof why);
  printf("%s\n", why);
  /* One call first: builds the program and allocates the kept workspace. */
  if (beast_conv2d_forward(ctx, &problem, x, w, NULL, y, NULL) != BEAST_OK) {
    fprintf(stderr, "%s\n", beast_last_error());
    return 1;
  }
  printf("workspace kept: %lld bytes\n", beast_context_workspace_bytes(ctx));
  double* kept = (double*)malloc(sizeof(double) * rounds);
  double* fresh = (double*)malloc(sizeof(double) * rounds);
  for (int r = 0; r < rounds; ++r) {
    for (int mode = 0; mode < 2; ++mode) {
      const double start = Now();
      for (int i = 0; i < calls; ++i) {
        if (mode == 1) beast_context_release_workspace(ctx);
        /* NULL queue: waited for */
        if (beast_conv2d_forward(ctx, &problem, x, w, NULL, y, NULL) != BEAST_OK) {
          fprintf(stderr, "%s\n", beast_last_error());
          return 1;
        }
      }
      (mode == 0 ? kept : fresh)[r] = (Now() - start) / calls * 1e3;
    }
  }
  qsort(kept, (size_t)rounds, sizeof(double), Compare);
  qsort(fresh, (size_t)rounds, sizeof(double), Compare);
  const double k_med = kept[rounds / 2], f_med = fresh[rounds / 2];
  printf(
      "per call, median of %d rounds of %d: kept workspace %.3f ms (%.3f-%.3f), "
      "a workspace per call %.3f ms (%.3f-%.3f): kept/per-call %.3f\n",
      rounds, calls, k_med, kept[0], kept[rounds - 1], f_med, fresh[0], fresh[rounds - 1],
      k_med / f_med);
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(y);
  beast_context_destroy(ctx);
  return 0;
}
