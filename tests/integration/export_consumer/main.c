/* main.c: checks an exported BeastTuned library through its C API only. Runs
 * every problem export_test.cpp tunes against a naive CPU reference, runs
 * shapes nobody tuned (fixed and random: the generic kernel must be right),
 * misuses the API, and calls from two threads.
 * Prints one "ok ..." or "FAIL ..." line per check; exits 0 only if all pass.
 * The problem lists here and in export_test.cpp must agree. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beast_tuned.h"

/* |y - ref| / sum|products| may not exceed this: float rounding of sums of
 * tens of terms stays well below it, an indexing error lands far above. */
#define TOLERANCE 1e-5

static int failures = 0;

static void Report(int ok, const char* what, const char* detail) {
  printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail[0] ? ": " : "", detail);
  if (!ok) ++failures;
}

/* Uniform in [-1, 1), multiples of 2^-23, from a splitmix64 stream. */
static float* RandomInputs(size_t count, uint64_t seed) {
  float* v = (float*)malloc(count * sizeof(float));
  for (size_t i = 0; i < count; ++i) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    v[i] = (float)((double)(z >> 40) / 8388608.0 - 1.0);
  }
  return v;
}

/* Largest |y - ref| / bound over the outputs. */
static double MaxRelativeError(const float* y, const double* ref, const double* bound, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = fabs((double)y[i] - ref[i]) / (bound[i] > 0 ? bound[i] : 1.0);
    if (!(e <= worst)) worst = e; /* a NaN output counts as the worst */
  }
  return worst;
}

static int OutSize(int in, int pad, int dilation, int taps, int stride) {
  return (in + 2 * pad - dilation * (taps - 1) - 1) / stride + 1;
}

/* Forward convolution in double (plus b[k] when b is not NULL), and the same
 * over absolute values. NCHW: x[n][c][h][w], w[k][c][r][s], y[n][k][p][q];
 * NHWC: x[n][h][w][c], w[k][r][s][c], y[n][p][q][k]. */
static void ReferenceConv(const beast_conv2d_problem* p, const float* x, const float* w,
                          const float* b, double* y, double* bound) {
  int P = OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h);
  int Q = OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w);
  int cg = p->c / p->groups, kg = p->k / p->groups;
  for (int n = 0; n < p->n; ++n)
    for (int k = 0; k < p->k; ++k)
      for (int oh = 0; oh < P; ++oh)
        for (int ow = 0; ow < Q; ++ow) {
          double sum = b ? b[k] : 0, abs_sum = b ? fabs(b[k]) : 0;
          for (int c = 0; c < cg; ++c)
            for (int r = 0; r < p->r; ++r)
              for (int s = 0; s < p->s; ++s) {
                int ih = oh * p->stride_h - p->pad_h + r * p->dilation_h;
                int iw = ow * p->stride_w - p->pad_w + s * p->dilation_w;
                if (ih < 0 || ih >= p->h || iw < 0 || iw >= p->w) continue;
                int ci = (k / kg) * cg + c;
                int nhwc = p->layout == BEAST_LAYOUT_NHWC;
                double xv = nhwc ? x[((size_t)(n * p->h + ih) * p->w + iw) * p->c + ci]
                                 : x[((size_t)(n * p->c + ci) * p->h + ih) * p->w + iw];
                double wv = nhwc ? w[((size_t)(k * p->r + r) * p->s + s) * cg + c]
                                 : w[((size_t)(k * cg + c) * p->r + r) * p->s + s];
                sum += xv * wv;
                abs_sum += fabs(xv * wv);
              }
          size_t o = p->layout == BEAST_LAYOUT_NHWC ? ((size_t)(n * P + oh) * Q + ow) * p->k + k
                                                    : ((size_t)(n * p->k + k) * P + oh) * Q + ow;
          y[o] = sum;
          bound[o] = abs_sum;
        }
}

/* Element (row, col) of a rows x cols matrix stored row- or column-major. */
static size_t At(int col_major, int rows, int cols, int row, int col) {
  return col_major ? (size_t)col * rows + row : (size_t)row * cols + col;
}

static void ReferenceGemm(const beast_gemm_problem* p, const float* a, const float* b, double* c,
                          double* bound) {
  const int cm = p->col_major;
  for (int m = 0; m < p->m; ++m)
    for (int n = 0; n < p->n; ++n) {
      double sum = 0, abs_sum = 0;
      for (int k = 0; k < p->k; ++k) {
        double av = p->trans_a ? a[At(cm, p->k, p->m, k, m)] : a[At(cm, p->m, p->k, m, k)];
        double bv = p->trans_b ? b[At(cm, p->n, p->k, n, k)] : b[At(cm, p->k, p->n, k, n)];
        sum += av * bv;
        abs_sum += fabs(av * bv);
      }
      c[At(cm, p->m, p->n, m, n)] = sum;
      bound[At(cm, p->m, p->n, m, n)] = abs_sum;
    }
}

/* One conv2d problem's data, its reference, and a check of an output. */
typedef struct ConvCase {
  beast_conv2d_problem p;
  float *x, *w, *b; /* b: NULL unless p.bias */
  double *ref, *bound;
  size_t y_count;
} ConvCase;

static ConvCase MakeConvCase(beast_conv2d_problem p, uint64_t seed) {
  ConvCase t;
  t.p = p;
  size_t P = (size_t)OutSize(p.h, p.pad_h, p.dilation_h, p.r, p.stride_h);
  size_t Q = (size_t)OutSize(p.w, p.pad_w, p.dilation_w, p.s, p.stride_w);
  t.y_count = (size_t)p.n * p.k * P * Q;
  t.x = RandomInputs((size_t)p.n * p.c * p.h * p.w, seed);
  t.w = RandomInputs((size_t)p.k * (p.c / p.groups) * p.r * p.s, seed + 1);
  t.b = p.bias ? RandomInputs((size_t)p.k, seed + 2) : NULL;
  t.ref = (double*)malloc(t.y_count * sizeof(double));
  t.bound = (double*)malloc(t.y_count * sizeof(double));
  ReferenceConv(&t.p, t.x, t.w, t.b, t.ref, t.bound);
  return t;
}

static void CheckConv(beast_context* ctx, const ConvCase* t, const char* what) {
  float* y = (float*)malloc(t->y_count * sizeof(float));
  for (size_t i = 0; i < t->y_count; ++i) y[i] = NAN; /* every output must be written */
  char detail[1200];
  beast_status s = beast_conv2d_forward_host(ctx, &t->p, t->x, t->w, t->b, y);
  if (s != BEAST_OK) {
    snprintf(detail, sizeof detail, "status %d: %s", (int)s, beast_last_error());
    Report(0, what, detail);
  } else {
    double e = MaxRelativeError(y, t->ref, t->bound, t->y_count);
    snprintf(detail, sizeof detail, "max relative error %.3g", e);
    Report(e <= TOLERANCE, what, detail);
  }
  free(y);
}

typedef struct ThreadJob {
  beast_context* ctx;
  const ConvCase* t;
  float* y;
  beast_status status;
} ThreadJob;

static void* RunConv(void* arg) {
  ThreadJob* job = (ThreadJob*)arg;
  job->status =
      beast_conv2d_forward_host(job->ctx, &job->t->p, job->t->x, job->t->w, job->t->b, job->y);
  return NULL;
}

/* Runs p through the host API against the reference, again for the same
 * bits, and asks beast_explain, whose answer must name `expect` (the template
 * for a tuned shape, "generic" for one nobody tuned). */
static void CheckGemm(beast_context* ctx, beast_gemm_problem p, uint64_t seed, const char* expect) {
  float* a = RandomInputs((size_t)p.m * p.k, seed);
  float* b = RandomInputs((size_t)p.k * p.n, seed + 1);
  size_t count = (size_t)p.m * p.n;
  float* c = (float*)malloc(count * sizeof(float));
  float* again = (float*)malloc(count * sizeof(float));
  double* ref = (double*)malloc(count * sizeof(double));
  double* bound = (double*)malloc(count * sizeof(double));
  for (size_t i = 0; i < count; ++i) c[i] = NAN;
  ReferenceGemm(&p, a, b, ref, bound);
  char what[128], detail[1200];
  snprintf(what, sizeof what, "gemm m=%d n=%d k=%d trans_a=%d trans_b=%d col_major=%d", p.m, p.n,
           p.k, p.trans_a, p.trans_b, p.col_major);
  beast_status s = beast_gemm_host(ctx, &p, a, b, c);
  if (s != BEAST_OK) {
    snprintf(detail, sizeof detail, "status %d: %s", (int)s, beast_last_error());
    Report(0, what, detail);
  } else {
    double e = MaxRelativeError(c, ref, bound, count);
    snprintf(detail, sizeof detail, "max relative error %.3g", e);
    Report(e <= TOLERANCE, what, detail);
    /* A second call reuses the built program and gives the same bits. */
    s = beast_gemm_host(ctx, &p, a, b, again);
    snprintf(what, sizeof what, "gemm m=%d n=%d k=%d again", p.m, p.n, p.k);
    Report(s == BEAST_OK && memcmp(c, again, count * sizeof(float)) == 0, what,
           s == BEAST_OK ? "" : beast_last_error());
  }
  s = beast_explain_gemm(ctx, &p, detail, sizeof detail);
  snprintf(what, sizeof what, "explain gemm m=%d n=%d k=%d", p.m, p.n, p.k);
  Report(s == BEAST_OK && strstr(detail, expect) != NULL, what,
         s == BEAST_OK ? detail : beast_last_error());
  free(a), free(b), free(c), free(again), free(ref), free(bound);
}

int main(void) {
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    printf("FAIL context: %s\n", beast_last_error());
    return 1;
  }
  char detail[1200];
  snprintf(detail, sizeof detail, "%d entries", beast_tuned_entry_count());
  Report(beast_tuned_entry_count() == 5, "entry count", detail);

  /* gemm:M=64,N=48,K=40, gemm:M=33,N=17,K=29,transA=1,transB=1 and
   * gemm:M=33,N=17,K=29,transA=1,layout=col */
  const beast_gemm_problem g1 = {64, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
  const beast_gemm_problem g2 = {33, 17, 29, 1, 1, BEAST_DTYPE_F32, 0};
  const beast_gemm_problem g4 = {33, 17, 29, 1, 0, BEAST_DTYPE_F32, 1};
  CheckGemm(ctx, g1, 11, "gemm/tiled");
  CheckGemm(ctx, g2, 21, "gemm/tiled");
  CheckGemm(ctx, g4, 51, "gemm/tiled");

  /* conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1 and
   * conv2d:N=2,C=4,H=9,W=7,K=6,R=3,S=2,stride_h=1,stride_w=2,pad_h=2,pad_w=0,dilation=2,groups=2,
   * bias=1 */
  const beast_conv2d_problem c1 = {
      1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32};
  const beast_conv2d_problem c2 = {
      2, 4, 9, 7, 6, 3, 2, 1, 2, 2, 0, 2, 2, 2, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 1};
  ConvCase t1 = MakeConvCase(c1, 31), t2 = MakeConvCase(c2, 41);
  CheckConv(ctx, &t1, "conv2d n=1 c=3 h=11 w=13 k=5 3x3 stride 2 pad 1");
  CheckConv(ctx, &t2, "conv2d n=2 c=4 h=9 w=7 k=6 3x2 dilation 2 groups 2 bias");
  beast_status s = beast_explain_conv2d(ctx, &c1, detail, sizeof detail);
  Report(s == BEAST_OK && strstr(detail, "conv2d/direct_nchw") != NULL, "explain conv2d",
         s == BEAST_OK ? detail : beast_last_error());

  /* Shapes nobody tuned run the generic kernel, and say so. */
  beast_gemm_problem g3 = g1;
  g3.m = 65;
  CheckGemm(ctx, g3, 61, "generic kernel beast_generic_gemm");
  beast_conv2d_problem c3 = c1;
  c3.layout = BEAST_LAYOUT_NHWC;
  ConvCase t3 = MakeConvCase(c3, 71);
  CheckConv(ctx, &t3, "untuned conv2d (c1 in NHWC)");
  s = beast_explain_conv2d(ctx, &c3, detail, sizeof detail);
  Report(s == BEAST_OK && strstr(detail, "generic kernel beast_generic_conv2d") != NULL &&
             strstr(detail, "no tuned kernel for conv2d:N=1,C=3,H=11") != NULL,
         "explain untuned conv2d", s == BEAST_OK ? detail : beast_last_error());
  beast_conv2d_problem c4 = c2; /* tuned with bias only */
  c4.bias = 0;
  ConvCase t4 = MakeConvCase(c4, 81);
  CheckConv(ctx, &t4, "untuned conv2d (c2 without bias)");
  float out[1];

  /* Random shapes nobody tuned: every feature of the problem structs. */
  uint64_t state = 12345;
  int random_failures = 0;
  char first_failure[1200] = "";
  for (int i = 0; i < 30; ++i) {
    float* r = RandomInputs(12, state += 7919);
    int u[12];
    for (int j = 0; j < 12; ++j) u[j] = (int)((r[j] + 1.0f) * 1000.0f); /* 0..1999 */
    free(r);
    int before = failures;
    if (i % 2 == 0) {
      int groups = 1 + u[0] % 3;
      beast_conv2d_problem c = {1 + u[1] % 2, groups * (1 + u[2] % 4), 3 + u[3] % 9, 3 + u[4] % 9,
                                groups * (1 + u[5] % 5), 1 + u[6] % 3, 1 + u[7] % 3,
                                1 + u[8] % 2, 1 + u[9] % 2, u[10] % 2, u[11] % 2, 1, 1, groups,
                                u[0] % 2 ? BEAST_LAYOUT_NHWC : BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32,
                                u[1] % 2};
      c.dilation_h = c.dilation_w = 1 + u[2] % 2;
      if (c.h + 2 * c.pad_h < c.dilation_h * (c.r - 1) + 1 ||
          c.w + 2 * c.pad_w < c.dilation_w * (c.s - 1) + 1) {
        c.dilation_h = c.dilation_w = 1;
      }
      ConvCase t = MakeConvCase(c, 1000 + (uint64_t)i);
      CheckConv(ctx, &t, "random untuned conv2d");
      free(t.x), free(t.w), free(t.b), free(t.ref), free(t.bound);
    } else {
      beast_gemm_problem g = {1 + u[0] % 70, 1 + u[1] % 70, 1 + u[2] % 70, u[3] % 2, u[4] % 2,
                              BEAST_DTYPE_F32, u[5] % 2};
      CheckGemm(ctx, g, 2000 + (uint64_t)i, "generic kernel beast_generic_gemm");
    }
    if (failures > before && !first_failure[0]) snprintf(first_failure, sizeof first_failure,
                                                         "shape %d", i);
    random_failures += failures > before;
  }
  snprintf(detail, sizeof detail, "%d of 30 failed%s%s", random_failures,
           first_failure[0] ? ", first: " : "", first_failure);
  Report(random_failures == 0, "30 random untuned shapes", detail);

  /* Misuse. */
  beast_conv2d_problem bad = c2;
  bad.groups = 3;
  s = beast_conv2d_forward_host(ctx, &bad, t2.x, t2.w, t2.b, out);
  Report(s == BEAST_ERROR_INVALID_ARGUMENT, "groups not dividing c", beast_last_error());
  s = beast_conv2d_forward_host(ctx, &c2, t2.x, t2.w, NULL, out);
  Report(s == BEAST_ERROR_INVALID_ARGUMENT, "bias problem without a bias", beast_last_error());
  beast_context* none = NULL;
  s = beast_context_create(BEAST_BACKEND_OPENCL, 1000, &none);
  Report(s == BEAST_ERROR_DEVICE && none == NULL, "device 1000", beast_last_error());

  /* Two threads on a fresh context: the lazy build happens once, both right. */
  beast_context* shared = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &shared) == BEAST_OK) {
    ThreadJob jobs[2];
    pthread_t threads[2];
    for (int i = 0; i < 2; ++i) {
      jobs[i].ctx = shared;
      jobs[i].t = &t2;
      jobs[i].y = (float*)malloc(t2.y_count * sizeof(float));
      pthread_create(&threads[i], NULL, RunConv, &jobs[i]);
    }
    for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
    double e0 = MaxRelativeError(jobs[0].y, t2.ref, t2.bound, t2.y_count);
    double e1 = MaxRelativeError(jobs[1].y, t2.ref, t2.bound, t2.y_count);
    snprintf(detail, sizeof detail, "status %d %d, max relative error %.3g %.3g",
             (int)jobs[0].status, (int)jobs[1].status, e0, e1);
    Report(jobs[0].status == BEAST_OK && jobs[1].status == BEAST_OK && e0 <= TOLERANCE &&
               e1 <= TOLERANCE,
           "two threads", detail);
    free(jobs[0].y), free(jobs[1].y);
    beast_context_destroy(shared);
  } else {
    Report(0, "two threads", beast_last_error());
  }
  beast_context_destroy(ctx);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
