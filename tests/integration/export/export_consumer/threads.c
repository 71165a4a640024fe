/* threads.c: four threads call one fresh context at once, each with another
 * shape and path — a tuned conv2d and a tuned gemm through the host API, a
 * nearest-tuned gemm through the device API on the thread's own queue, an
 * untuned conv2d (generic kernel) through the device API on the context's
 * queue — several times over, so that lazy builds, dispatch and launches
 * overlap; every result is checked against the reference. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

#define THREADS 4
#define ROUNDS 4

typedef struct Job {
  beast_context* ctx;
  pthread_barrier_t* start;
  int kind; /* 0 host conv2d, 1 host gemm, 2 device gemm on own queue, 3 device conv2d, NULL queue
             */
  ConvCase conv;
  GemmCase gemm;
  int failed_calls;
  double worst;
  char first_error[512];
} Job;

static void Note(Job* job, beast_status s, const float* y, const double* ref, const double* bound,
                 size_t n) {
  if (s != BEAST_OK) {
    if (!job->failed_calls++)
      snprintf(job->first_error, sizeof job->first_error, "%s", beast_last_error());
    return;
  }
  double e = MaxRelativeError(y, ref, bound, n);
  if (!(e <= job->worst)) job->worst = e;
}

static cl_mem Upload(cl_context context, cl_command_queue queue, const float* data, size_t n) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &err);
  if (err == CL_SUCCESS && data) {
    clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0, n * sizeof(float), data, 0, NULL, NULL);
  }
  return err == CL_SUCCESS ? mem : NULL;
}

static void* Run(void* arg) {
  Job* job = (Job*)arg;
  void *context_handle = NULL, *device_handle = NULL;
  beast_context_opencl(job->ctx, &context_handle, &device_handle, NULL);
  cl_context context = (cl_context)context_handle;
  cl_int err = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(context, (cl_device_id)device_handle, 0, &err); /* this thread's */
  const size_t n = job->kind == 0 || job->kind == 3 ? job->conv.y_count : job->gemm.c_count;
  float* out = (float*)malloc(n * sizeof(float));
  pthread_barrier_wait(job->start);
  for (int round = 0; round < ROUNDS; ++round) {
    for (size_t i = 0; i < n; ++i) out[i] = NAN;
    const ConvCase* c = &job->conv;
    const GemmCase* g = &job->gemm;
    if (job->kind == 0) {
      beast_status s = beast_conv2d_forward_host(job->ctx, &c->p, c->x, c->w, c->b, out);
      Note(job, s, out, c->ref, c->bound, n);
    } else if (job->kind == 1) {
      Note(job, beast_gemm_host(job->ctx, &g->p, g->a, g->b, out), out, g->ref, g->bound, n);
    } else {
      int conv = job->kind == 3;
      cl_mem in0 = Upload(context, queue, conv ? c->x : g->a, conv ? c->x_count : g->a_count);
      cl_mem in1 = Upload(context, queue, conv ? c->w : g->b, conv ? c->w_count : g->b_count);
      cl_mem y = Upload(context, queue, out, n); /* NaN: every output must be written */
      beast_status s = conv ? beast_conv2d_forward(job->ctx, &c->p, in0, in1, NULL, y, NULL)
                            : beast_gemm(job->ctx, &g->p, in0, in1, y, queue);
      clEnqueueReadBuffer(queue, y, CL_TRUE, 0, n * sizeof(float), out, 0, NULL, NULL);
      Note(job, s, out, conv ? c->ref : g->ref, conv ? c->bound : g->bound, n);
      clReleaseMemObject(in0), clReleaseMemObject(in1), clReleaseMemObject(y);
    }
  }
  free(out);
  if (queue) clReleaseCommandQueue(queue);
  return NULL;
}

void CheckThreads(void) {
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    Report(0, "four threads: context", beast_last_error());
    return;
  }
  const beast_conv2d_problem tuned_conv = {
      2, 4, 9, 7, 6, 3, 2, 1, 2, 2, 0, 2, 2, 2, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 1};
  const beast_gemm_problem tuned_gemm = {64, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
  const beast_gemm_problem nearest_gemm = {60, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
  const beast_conv2d_problem generic_conv = {
      1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NHWC, BEAST_DTYPE_F32, 0};
  static const char* const kWhat[THREADS] = {
      "four threads: tuned conv2d, host api", "four threads: tuned gemm, host api",
      "four threads: nearest gemm, device api on the thread's queue",
      "four threads: generic conv2d, device api on the context's queue"};
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  Job jobs[THREADS];
  pthread_t threads[THREADS];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < THREADS; ++i) {
    jobs[i].ctx = ctx;
    jobs[i].start = &start;
    jobs[i].kind = i;
    if (i == 0 || i == 3)
      jobs[i].conv = MakeConvCase(i == 0 ? tuned_conv : generic_conv, 500 + i);
    else
      jobs[i].gemm = MakeGemmCase(i == 1 ? tuned_gemm : nearest_gemm, 500 + i);
    pthread_create(&threads[i], NULL, Run, &jobs[i]);
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < THREADS; ++i) {
    char detail[800];
    snprintf(detail, sizeof detail, "%d rounds, %d failed%s%s, max relative error %.3g", ROUNDS,
             jobs[i].failed_calls, jobs[i].failed_calls ? ": " : "", jobs[i].first_error,
             jobs[i].worst);
    Report(jobs[i].failed_calls == 0 && jobs[i].worst <= TOLERANCE, kWhat[i], detail);
    if (i == 0 || i == 3)
      FreeConvCase(&jobs[i].conv);
    else
      FreeGemmCase(&jobs[i].gemm);
  }
  pthread_barrier_destroy(&start);
  CountCache(ctx);
  beast_context_destroy(ctx);
}
