/* The CUDA side of an exported library, from outside.
 *   cuda_export_consumer nodevice  — on a machine without a CUDA driver: a
 *     CUDA context is refused with one line, and an OpenCL context still
 *     serves the GEMM that was tuned on both kinds of device with its
 *     OpenCL entry (never the CUDA one).
 *   cuda_export_consumer gpu       — on CUDA device 0: the tuned GEMM
 *     M=256,N=192,K=128 and convolution N=2,C=16,H=17,W=15,K=24,R=3,S=3,pad=1
 *     and an untuned GEMM (the generic kernel, from PTX) each against a CPU
 *     reference, through the host API.
 *   cuda_export_consumer gpu-conv  — on CUDA device 0: that convolution
 *     alone (a library that tuned only it, with a template whose kernels
 *     share a workspace).
 * Prints each check as "ok ..." or "FAIL ..." and exits 1 on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beast_tuned.h"

static int failures = 0;

static void Check(int ok, const char* what, const char* detail) {
  printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail[0] ? ": " : "", detail);
  failures += !ok;
}

static float Value(int i, int salt) { return (float)(((i * 7 + salt * 13) % 23) - 11) / 8.0f; }

/* Largest |c - ref| / (sum |a b| + tiny) over a row-major GEMM. */
static double GemmError(const float* a, const float* b, const float* c, int m, int n, int k) {
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0, scale = 1e-30;
      for (int l = 0; l < k; ++l) {
        ref += (double)a[i * k + l] * b[l * n + j];
        scale += fabs((double)a[i * k + l] * b[l * n + j]);
      }
      double e = fabs(c[i * n + j] - ref) / scale;
      if (e > worst) worst = e;
    }
  }
  return worst;
}

static void RunGemm(beast_context* ctx, int m, int n, int k, const char* expect) {
  float* a = malloc(sizeof(float) * m * k);
  float* b = malloc(sizeof(float) * k * n);
  float* c = malloc(sizeof(float) * m * n);
  for (int i = 0; i < m * k; ++i) a[i] = Value(i, 1);
  for (int i = 0; i < k * n; ++i) b[i] = Value(i, 2);
  beast_gemm_problem p = {m, n, k, 0, 0, BEAST_DTYPE_F32, 0};
  char why[1024], what[64];
  beast_explain_gemm(ctx, &p, why, sizeof why);
  snprintf(what, sizeof what, "gemm %dx%dx%d explain", m, n, k);
  Check(strstr(why, expect) != NULL, what, why);
  snprintf(what, sizeof what, "gemm %dx%dx%d result", m, n, k);
  if (beast_gemm_host(ctx, &p, a, b, c) != BEAST_OK) {
    Check(0, what, beast_last_error());
  } else {
    char detail[64];
    double e = GemmError(a, b, c, m, n, k);
    snprintf(detail, sizeof detail, "relative error %g", e);
    Check(e <= 2 * k * 6e-8, what, detail);
  }
  free(a);
  free(b);
  free(c);
}

static void RunConv(beast_context* ctx) {
  const int N = 2, C = 16, H = 17, W = 15, K = 24, R = 3, S = 3, P = 17, Q = 15;
  float* x = malloc(sizeof(float) * N * C * H * W);
  float* w = malloc(sizeof(float) * K * C * R * S);
  float* y = malloc(sizeof(float) * N * K * P * Q);
  for (int i = 0; i < N * C * H * W; ++i) x[i] = Value(i, 3);
  for (int i = 0; i < K * C * R * S; ++i) w[i] = Value(i, 4);
  beast_conv2d_problem p = {
      N, C, H, W, K, R, S, 1, 1, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0};
  char why[1024];
  beast_explain_conv2d(ctx, &p, why, sizeof why);
  Check(strstr(why, "exact tuned: conv2d/") != NULL, "conv2d explain", why);
  if (beast_conv2d_forward_host(ctx, &p, x, w, NULL, y) != BEAST_OK) {
    Check(0, "conv2d result", beast_last_error());
  } else {
    double worst = 0;
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < P; ++i)
          for (int j = 0; j < Q; ++j) {
            double ref = 0, scale = 1e-30;
            for (int c = 0; c < C; ++c)
              for (int r = 0; r < R; ++r)
                for (int s = 0; s < S; ++s) {
                  int h = i - 1 + r, v = j - 1 + s;
                  if (h < 0 || h >= H || v < 0 || v >= W) continue;
                  double t =
                      (double)x[((n * C + c) * H + h) * W + v] * w[((k * C + c) * R + r) * S + s];
                  ref += t;
                  scale += fabs(t);
                }
            double e = fabs(y[((n * K + k) * P + i) * Q + j] - ref) / scale;
            if (e > worst) worst = e;
          }
    char detail[64];
    snprintf(detail, sizeof detail, "relative error %g", worst);
    Check(worst <= 2 * C * R * S * 6e-8, "conv2d result", detail);
  }
  free(x);
  free(w);
  free(y);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  beast_context* ctx = NULL;
  if (strcmp(mode, "nodevice") == 0) {
    beast_status s = beast_context_create(BEAST_BACKEND_CUDA, 0, &ctx);
    Check(s == BEAST_ERROR_DEVICE && ctx == NULL, "cuda context refused", beast_last_error());
    Check(strcmp(beast_last_error(), "CUDA device 0: no CUDA driver (libcuda.so.1 not found)") == 0,
          "cuda refusal says why", beast_last_error());
    if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
      Check(0, "opencl context", beast_last_error());
      return 1;
    }
    RunGemm(ctx, 256, 192, 128, "exact tuned: gemm/tiled (kernel gemm_tiled) config ");
    beast_context_destroy(ctx);
  } else if (strcmp(mode, "gpu") == 0) {
    if (beast_context_create(BEAST_BACKEND_CUDA, 0, &ctx) != BEAST_OK) {
      Check(0, "cuda context", beast_last_error());
      return 1;
    }
    RunGemm(ctx, 256, 192, 128, "exact tuned: gemm/tiled (kernel gemm_tiled (cubin for sm_");
    RunConv(ctx);
    RunGemm(ctx, 33, 17, 29, "generic kernel beast_generic_gemm");
    beast_context_destroy(ctx);
  } else if (strcmp(mode, "gpu-conv") == 0) {
    /* A library of one tuned convolution (one with a workspace, say). */
    if (beast_context_create(BEAST_BACKEND_CUDA, 0, &ctx) != BEAST_OK) {
      Check(0, "cuda context", beast_last_error());
      return 1;
    }
    RunConv(ctx);
    beast_context_destroy(ctx);
  } else {
    fprintf(stderr, "usage: cuda_export_consumer nodevice|gpu|gpu-conv\n");
    return 2;
  }
  return failures ? 1 : 0;
}
