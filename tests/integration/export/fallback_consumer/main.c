/* main.c of the fallback consumer: four threads call one fresh context at
 * once, each running every problem below through the host API, so the first
 * failures of the broken tuned kernels race with each other and with calls
 * that already pass them over. Every result is checked against the CPU
 * reference ("ok"/"FAIL" lines); then beast_explain's answer for each
 * problem is printed as "explain NAME: TEXT" for export_fallback_test.cpp to
 * check. The problems (export_fixture.hpp's kTunedProblems, and one tuned on
 * another device only) are the test's: keep them in step. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "consumer.h"

#define THREADS 4

typedef struct Problem {
  const char* name;
  int is_gemm;
  beast_gemm_problem gemm;
  beast_conv2d_problem conv;
} Problem;

static const Problem kProblems[] = {
    /* kTunedProblems[0]: its program is broken (does not build); also tuned
     * on another device, whose entry serves it then. */
    {"gemm 64x48x40", 1, {64, 48, 40, 0, 0, BEAST_DTYPE_F32, 0}, {0}},
    /* kTunedProblems[1]: intact. */
    {"gemm 33x17x29 tt", 1, {33, 17, 29, 1, 1, BEAST_DTYPE_F32, 0}, {0}},
    /* kTunedProblems[3]: its entry names a kernel its program lacks. */
    {"conv2d 11x13 stride 2",
     0,
     {0},
     {1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0}},
    /* Tuned only on another device. */
    {"gemm 40x24x16 foreign", 1, {40, 24, 16, 0, 0, BEAST_DTYPE_F32, 0}, {0}},
};
#define PROBLEMS (int)(sizeof kProblems / sizeof kProblems[0])

typedef struct Job {
  beast_context* ctx;
  pthread_barrier_t* start;
  int thread;
  char results[PROBLEMS][600]; /* "" when right, else what went wrong */
} Job;

/* Runs problem i on the job's context; "" when the output matches. */
static void RunOne(Job* job, int i) {
  const Problem* p = &kProblems[i];
  char* out = job->results[i];
  out[0] = '\0';
  beast_status status;
  double worst;
  uint64_t seed = 1000 + (uint64_t)i;
  if (p->is_gemm) {
    GemmCase t = MakeGemmCase(p->gemm, seed);
    float* c = (float*)malloc(t.c_count * sizeof(float));
    for (size_t k = 0; k < t.c_count; ++k) c[k] = NAN;
    status = beast_gemm_host(job->ctx, &p->gemm, t.a, t.b, c);
    worst = MaxRelativeError(c, t.ref, t.bound, t.c_count);
    free(c);
    FreeGemmCase(&t);
  } else {
    ConvCase t = MakeConvCase(p->conv, seed);
    float* y = (float*)malloc(t.y_count * sizeof(float));
    for (size_t k = 0; k < t.y_count; ++k) y[k] = NAN;
    status = beast_conv2d_forward_host(job->ctx, &p->conv, t.x, t.w, t.b, y);
    worst = MaxRelativeError(y, t.ref, t.bound, t.y_count);
    free(y);
    FreeConvCase(&t);
  }
  if (status != BEAST_OK) {
    snprintf(out, 600, "status %d: %s", (int)status, beast_last_error());
  } else if (beast_last_error()[0] != '\0') {
    /* A call served after a kernel was passed over reports no failure. */
    snprintf(out, 600, "succeeded, but beast_last_error() says: %s", beast_last_error());
  } else if (!(worst <= TOLERANCE)) {
    snprintf(out, 600, "relative error %g", worst);
  }
}

static void* Run(void* arg) {
  Job* job = (Job*)arg;
  pthread_barrier_wait(job->start);
  /* Each thread starts at another problem, so first uses overlap. */
  for (int k = 0; k < PROBLEMS; ++k) RunOne(job, (k + job->thread) % PROBLEMS);
  return NULL;
}

int main(void) {
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    Report(0, "beast_context_create", beast_last_error());
    return 1;
  }
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  Job jobs[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    jobs[t].ctx = ctx;
    jobs[t].start = &start;
    jobs[t].thread = t;
    pthread_create(&threads[t], NULL, Run, &jobs[t]);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  pthread_barrier_destroy(&start);
  for (int t = 0; t < THREADS; ++t) {
    for (int i = 0; i < PROBLEMS; ++i) {
      char what[128];
      snprintf(what, sizeof what, "thread %d %s", t, kProblems[i].name);
      Report(jobs[t].results[i][0] == '\0', what, jobs[t].results[i]);
    }
  }
  for (int i = 0; i < PROBLEMS; ++i) {
    char text[4096];
    const Problem* p = &kProblems[i];
    beast_status status = p->is_gemm ? beast_explain_gemm(ctx, &p->gemm, text, sizeof text)
                                     : beast_explain_conv2d(ctx, &p->conv, text, sizeof text);
    printf("explain %s: %s\n", p->name, status == BEAST_OK ? text : beast_last_error());
  }
  beast_context_destroy(ctx);
  return failures ? 1 : 0;
}
