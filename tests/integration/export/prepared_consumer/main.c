/* Runs conv2d N=1 C=8 H=W=10 (CONSUMER_HW) K=8 3x3 pad 1 with a bias through an exported
 * library whose tuned entry is conv2d/winograd_split (its filter transform a
 * prepare stage), on the consumer's own OpenCL buffers, and checks:
 *   1. beast_conv2d_prepare then beast_conv2d_forward_prepared computes the
 *      convolution, for two different inputs with one prepared handle;
 *   2. the handle is a snapshot: after the weights are zeroed in place, a
 *      prepared call still computes with the weights it prepared — the
 *      filter transform did not run again — while a plain
 *      beast_conv2d_forward computes with the zeros (only the bias is left);
 *   3. preparing again takes the new weights;
 *   4. plain calls keep one workspace in the context (Winograd's
 *      transforms; none for a kernel that needs none); alternating between
 *      the context's queue and one of the consumer's own, enqueued
 *      together on two of its own, and from four threads at once, they
 *      compute the convolution; releasing the workspace frees it until the
 *      next call;
 *   5. bad arguments get INVALID_ARGUMENT and one line.
 * The tuned entry of plain calls is conv2d/winograd_split, or the template
 * named as the argument (a library whose plain calls run another winner:
 * explain then names both). Prints a line per check; exits 0 only when every
 * one holds. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "beast_tuned.h"

/* The image's side: 10, or another one the build names (-DCONSUMER_HW=9),
 * so the two tests that run at once build different programs. */
#ifndef CONSUMER_HW
#define CONSUMER_HW 10
#endif
enum { C = 8, H = CONSUMER_HW, W = CONSUMER_HW, K = 8, R = 3, S = 3, P = H, Q = W };
#define NX (C * H * W)
#define NW (K * C * R * S)
#define NY (K * P * Q)

static float x1[NX], x2[NX], w[NW], b[K], zeros[NW];
static int failures = 0;

static void Check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

/* The largest error of y against the double-precision convolution of x and
 * wt plus the bias, relative to the sum of |terms| of that output. */
static double WorstError(const float* y, const float* x, const float* wt) {
  double worst = 0;
  for (int k = 0; k < K; ++k)
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q) {
        double ref = b[k], scale = fabs(b[k]);
        for (int c = 0; c < C; ++c)
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < S; ++s) {
              const int h = p + r - 1, ww = q + s - 1;
              if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
              const double t = (double)x[(c * H + h) * W + ww] * wt[((k * C + c) * R + r) * S + s];
              ref += t;
              scale += fabs(t);
            }
        const double err = fabs(y[(k * P + p) * Q + q] - ref) / (scale > 0 ? scale : 1);
        if (!(err <= worst)) worst = err; /* NaN counts as the worst */
      }
  return worst;
}

/* A thread of the consumer's: plain calls on a queue and buffers of its own
 * (its input x1 or x2), each finished and checked before the next. */
typedef struct Caller {
  beast_context* ctx;
  const beast_conv2d_problem* problem;
  cl_mem w, b;
  const float* input;
  int ok;
} Caller;

static void* CallRepeatedly(void* arg) {
  Caller* c = (Caller*)arg;
  void *context = NULL, *device = NULL;
  beast_context_opencl(c->ctx, &context, &device, NULL);
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue((cl_context)context, (cl_device_id)device, 0, &err);
  cl_mem x = clCreateBuffer((cl_context)context, CL_MEM_READ_WRITE, sizeof x1, NULL, &err);
  cl_mem yb =
      clCreateBuffer((cl_context)context, CL_MEM_READ_WRITE, sizeof(float) * NY, NULL, &err);
  float y[NY];
  c->ok =
      queue && x && yb &&
      clEnqueueWriteBuffer(queue, x, CL_TRUE, 0, sizeof x1, c->input, 0, NULL, NULL) == CL_SUCCESS;
  for (int i = 0; i < 6 && c->ok; ++i) {
    c->ok = beast_conv2d_forward(c->ctx, c->problem, x, c->w, c->b, yb, queue) == BEAST_OK &&
            clEnqueueReadBuffer(queue, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL) == CL_SUCCESS &&
            WorstError(y, c->input, w) <= 1e-4;
  }
  if (x) clReleaseMemObject(x);
  if (yb) clReleaseMemObject(yb);
  if (queue) clReleaseCommandQueue(queue);
  return NULL;
}

int main(int argc, char** argv) {
  const char* plain_template = argc > 1 ? argv[1] : "conv2d/winograd_split";
  for (int i = 0; i < NX; ++i) {
    x1[i] = (float)((i * 7 % 23) - 11) / 8.0f;
    x2[i] = (float)((i * 11 % 17) - 8) / 4.0f;
  }
  for (int i = 0; i < NW; ++i) w[i] = (float)((i * 5 % 19) - 9) / 16.0f;
  for (int k = 0; k < K; ++k) b[k] = (float)k - 3.5f;
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    fprintf(stderr, "context: %s\n", beast_last_error());
    return 1;
  }
  void *cl_ctx = NULL, *device = NULL, *queue = NULL;
  beast_context_opencl(ctx, &cl_ctx, &device, &queue);
  cl_command_queue q = (cl_command_queue)queue;
  cl_int err = CL_SUCCESS;
  cl_mem xb = clCreateBuffer((cl_context)cl_ctx, CL_MEM_READ_WRITE, sizeof x1, NULL, &err);
  cl_mem wb = clCreateBuffer((cl_context)cl_ctx, CL_MEM_READ_WRITE, sizeof w, NULL, &err);
  cl_mem bb = clCreateBuffer((cl_context)cl_ctx, CL_MEM_READ_WRITE, sizeof b, NULL, &err);
  cl_mem yb = clCreateBuffer((cl_context)cl_ctx, CL_MEM_READ_WRITE, sizeof(float) * NY, NULL, &err);
  clEnqueueWriteBuffer(q, wb, CL_TRUE, 0, sizeof w, w, 0, NULL, NULL);
  clEnqueueWriteBuffer(q, bb, CL_TRUE, 0, sizeof b, b, 0, NULL, NULL);
  static float y[NY];
  const double tolerance = 1e-4; /* Winograd F(4x4) in float: far below */

  beast_conv2d_problem problem = {
      1, C, H, W, K, R, S, 1, 1, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 1};
  char why[1024];
  beast_explain_conv2d(ctx, &problem, why, sizeof why);
  printf("%s\n", why);
  char expected[256];
  snprintf(expected, sizeof expected, "exact tuned: %s", plain_template);
  Check(strstr(why, expected) != NULL, "plain calls run the expected tuned entry");
  if (strcmp(plain_template, "conv2d/winograd_split") != 0) {
    Check(strstr(why, "; with prepared weights (beast_conv2d_prepare): conv2d/winograd_split") !=
              NULL,
          "explain names the prepared calls' winner");
  }

  beast_conv2d_prepared* prepared = NULL;
  Check(beast_conv2d_prepare(ctx, &problem, wb, bb, NULL, &prepared) == BEAST_OK && prepared,
        "beast_conv2d_prepare");
  const float* inputs[2] = {x1, x2};
  for (int i = 0; i < 2; ++i) {
    clEnqueueWriteBuffer(q, xb, CL_TRUE, 0, sizeof x1, inputs[i], 0, NULL, NULL);
    const beast_status st = beast_conv2d_forward_prepared(ctx, prepared, xb, yb, NULL);
    clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
    const double e = WorstError(y, inputs[i], w);
    printf("input %d: max relative error %g\n", i + 1, e);
    Check(st == BEAST_OK && e <= tolerance, "a prepared call computes the convolution");
  }

  /* The weights zeroed in place: the handle keeps what it prepared. */
  clEnqueueWriteBuffer(q, wb, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL);
  beast_conv2d_forward_prepared(ctx, prepared, xb, yb, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
  Check(WorstError(y, x2, w) <= tolerance,
        "a prepared call after the weights changed computes with the prepared ones");
  beast_conv2d_forward(ctx, &problem, xb, wb, bb, yb, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
  Check(WorstError(y, x2, zeros) <= tolerance, "a plain call transforms the new weights");
  beast_conv2d_prepared_destroy(prepared);
  prepared = NULL;
  Check(beast_conv2d_prepare(ctx, &problem, wb, bb, NULL, &prepared) == BEAST_OK,
        "preparing again");
  beast_conv2d_forward_prepared(ctx, prepared, xb, yb, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
  Check(WorstError(y, x2, zeros) <= tolerance, "preparing again takes the new weights");

  /* The workspace a plain call keeps: the weights back, calls alternating
   * between the context's queue (NULL: waited for) and the consumer's own. */
  const int needs = strcmp(plain_template, "conv2d/winograd_split") == 0;
  const long long kept = beast_context_workspace_bytes(ctx);
  printf("workspace kept: %lld bytes\n", kept);
  Check(needs ? kept > 0 : kept == 0,
        needs ? "a plain call keeps its workspace" : "plain calls keep no workspace");
  cl_command_queue own = clCreateCommandQueue((cl_context)cl_ctx, (cl_device_id)device, 0, &err);
  clEnqueueWriteBuffer(q, wb, CL_TRUE, 0, sizeof w, w, 0, NULL, NULL);
  int alternating = err == CL_SUCCESS;
  for (int i = 0; i < 4 && alternating; ++i) {
    clEnqueueWriteBuffer(q, xb, CL_TRUE, 0, sizeof x1, inputs[i % 2], 0, NULL, NULL);
    const beast_status call =
        beast_conv2d_forward(ctx, &problem, xb, wb, bb, yb, i % 2 ? (void*)own : NULL);
    clFinish(own);
    clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
    alternating = call == BEAST_OK && WorstError(y, inputs[i % 2], w) <= tolerance;
  }
  Check(alternating, "plain calls alternating between two queues compute the convolution");
  /* Two calls enqueued at once on two queues of the consumer's, neither
   * waited for before the other is enqueued: the second's kernels must wait
   * for the first's on the shared workspace. */
  cl_command_queue other = clCreateCommandQueue((cl_context)cl_ctx, (cl_device_id)device, 0, &err);
  cl_mem x2b = clCreateBuffer((cl_context)cl_ctx, CL_MEM_READ_WRITE, sizeof x2, NULL, &err);
  cl_mem y2b = clCreateBuffer((cl_context)cl_ctx, CL_MEM_READ_WRITE, sizeof y, NULL, &err);
  clEnqueueWriteBuffer(q, xb, CL_TRUE, 0, sizeof x1, x1, 0, NULL, NULL);
  clEnqueueWriteBuffer(q, x2b, CL_TRUE, 0, sizeof x2, x2, 0, NULL, NULL);
  int together = other && x2b && y2b;
  for (int i = 0; i < 8 && together; ++i) {
    const beast_status first = beast_conv2d_forward(ctx, &problem, xb, wb, bb, yb, own);
    const beast_status second = beast_conv2d_forward(ctx, &problem, x2b, wb, bb, y2b, other);
    clFinish(own);
    clFinish(other);
    clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
    together = first == BEAST_OK && WorstError(y, x1, w) <= tolerance;
    clEnqueueReadBuffer(q, y2b, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
    together = together && second == BEAST_OK && WorstError(y, x2, w) <= tolerance;
  }
  Check(together, "plain calls enqueued together on two queues compute the convolution");
  /* Four threads calling at once, each on a queue of its own. */
  Caller callers[4];
  pthread_t threads[4];
  int started = 0;
  for (int i = 0; i < 4; ++i) {
    callers[i] = (Caller){ctx, &problem, wb, bb, i % 2 ? x2 : x1, 0};
    started += pthread_create(&threads[i], NULL, CallRepeatedly, &callers[i]) == 0;
  }
  int threads_ok = started == 4;
  for (int i = 0; i < started; ++i) {
    pthread_join(threads[i], NULL);
    threads_ok = threads_ok && callers[i].ok;
  }
  Check(threads_ok, "four threads calling at once on their own queues compute the convolution");
  Check(beast_context_workspace_bytes(ctx) == kept, "they keep the same workspace");
  beast_context_release_workspace(ctx);
  Check(beast_context_workspace_bytes(ctx) == 0, "releasing the workspace lets it go");
  const beast_status again = beast_conv2d_forward(ctx, &problem, xb, wb, bb, yb, NULL);
  clEnqueueReadBuffer(q, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL);
  Check(again == BEAST_OK && WorstError(y, x1, w) <= tolerance &&
            beast_context_workspace_bytes(ctx) == kept,
        "a call after the release computes and keeps a workspace again");
  clReleaseMemObject(x2b);
  clReleaseMemObject(y2b);
  clReleaseCommandQueue(other);
  clReleaseCommandQueue(own);

  /* Mistakes, each refused with one line. */
  beast_status st = beast_conv2d_forward_prepared(ctx, prepared, NULL, yb, NULL);
  printf("%s\n", beast_last_error());
  Check(st == BEAST_ERROR_INVALID_ARGUMENT, "a NULL input is refused");
  beast_conv2d_prepared* none = NULL;
  st = beast_conv2d_prepare(ctx, &problem, wb, NULL, NULL, &none);
  printf("%s\n", beast_last_error());
  Check(st == BEAST_ERROR_INVALID_ARGUMENT && none == NULL, "a missing bias is refused");
  beast_conv2d_prepared_destroy(prepared);
  beast_conv2d_prepared_destroy(NULL);
  clReleaseMemObject(xb);
  clReleaseMemObject(wb);
  clReleaseMemObject(bb);
  clReleaseMemObject(yb);
  beast_context_destroy(ctx);
  printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
