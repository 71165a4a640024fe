/* common.c: reporting, seeded inputs and the CPU references the consumer's
 * checks share (consumer.h). The references are naive loops in double, on
 * purpose nothing like the kernels they check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

int failures = 0;
static beast_cache_info cache_totals;
static char cache_folder[1100]; /* the last context's, "" when off */

void CountCache(beast_context* ctx) {
  beast_cache_info info;
  if (beast_cache_stats(ctx, &info) != BEAST_OK) {
    Report(0, "beast_cache_stats", beast_last_error());
    return;
  }
  cache_totals.programs_built += info.programs_built;
  cache_totals.programs_loaded += info.programs_loaded;
  cache_totals.entries_rejected += info.entries_rejected;
  snprintf(cache_folder, sizeof cache_folder, "%s", info.directory);
}

void PrintCacheTotals(void) {
  printf("cache built=%d loaded=%d rejected=%d folder=%s\n", cache_totals.programs_built,
         cache_totals.programs_loaded, cache_totals.entries_rejected,
         cache_folder[0] ? cache_folder : "off");
}

void Report(int ok, const char* what, const char* detail) {
  printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail[0] ? ": " : "", detail);
  if (!ok) ++failures;
}

float* RandomInputs(size_t count, uint64_t seed) {
  float* v = (float*)malloc((count ? count : 1) * sizeof(float));
  for (size_t i = 0; i < count; ++i) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    v[i] = (float)((double)(z >> 40) / 8388608.0 - 1.0);
  }
  return v;
}

double MaxRelativeError(const float* y, const double* ref, const double* bound, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = fabs((double)y[i] - ref[i]) / (bound[i] > 0 ? bound[i] : 1.0);
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

int OutSize(int in, int pad, int dilation, int taps, int stride) {
  return (in + 2 * pad - dilation * (taps - 1) - 1) / stride + 1;
}

/* Forward convolution in double (plus b[k] when b is not NULL), and the same
 * over absolute values. NCHW: x[n][c][h][w], w[k][c][r][s], y[n][k][p][q];
 * NHWC: x[n][h][w][c], w[k][r][s][c], y[n][p][q][k]. */
void ReferenceConv(ConvCase* t) {
  const beast_conv2d_problem* p = &t->p;
  const float *x = t->x, *w = t->w, *b = t->b;
  int P = OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h);
  int Q = OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w);
  int cg = p->c / p->groups, kg = p->k / p->groups;
  int nhwc = p->layout == BEAST_LAYOUT_NHWC;
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
                double xv = nhwc ? x[((size_t)(n * p->h + ih) * p->w + iw) * p->c + ci]
                                 : x[((size_t)(n * p->c + ci) * p->h + ih) * p->w + iw];
                double wv = nhwc ? w[((size_t)(k * p->r + r) * p->s + s) * cg + c]
                                 : w[((size_t)(k * cg + c) * p->r + r) * p->s + s];
                sum += xv * wv;
                abs_sum += fabs(xv * wv);
              }
          size_t o = nhwc ? ((size_t)(n * P + oh) * Q + ow) * p->k + k
                          : ((size_t)(n * p->k + k) * P + oh) * Q + ow;
          t->ref[o] = sum;
          t->bound[o] = abs_sum;
        }
}

ConvCase MakeConvCase(beast_conv2d_problem p, uint64_t seed) {
  ConvCase t;
  t.p = p;
  size_t P = (size_t)OutSize(p.h, p.pad_h, p.dilation_h, p.r, p.stride_h);
  size_t Q = (size_t)OutSize(p.w, p.pad_w, p.dilation_w, p.s, p.stride_w);
  t.x_count = (size_t)p.n * p.c * p.h * p.w;
  t.w_count = (size_t)p.k * (p.c / p.groups) * p.r * p.s;
  t.y_count = (size_t)p.n * p.k * P * Q;
  t.x = RandomInputs(t.x_count, seed);
  t.w = RandomInputs(t.w_count, seed + 1);
  t.b = p.bias ? RandomInputs((size_t)p.k, seed + 2) : NULL;
  t.ref = (double*)malloc(t.y_count * sizeof(double));
  t.bound = (double*)malloc(t.y_count * sizeof(double));
  ReferenceConv(&t);
  return t;
}

void FreeConvCase(ConvCase* t) { free(t->x), free(t->w), free(t->b), free(t->ref), free(t->bound); }

/* Element (row, col) of a rows x cols matrix stored row- or column-major. */
static size_t At(int col_major, int rows, int cols, int row, int col) {
  return col_major ? (size_t)col * rows + row : (size_t)row * cols + col;
}

GemmCase MakeGemmCase(beast_gemm_problem p, uint64_t seed) {
  GemmCase t;
  t.p = p;
  t.a_count = (size_t)p.m * p.k;
  t.b_count = (size_t)p.k * p.n;
  t.c_count = (size_t)p.m * p.n;
  t.a = RandomInputs(t.a_count, seed);
  t.b = RandomInputs(t.b_count, seed + 1);
  t.ref = (double*)malloc(t.c_count * sizeof(double));
  t.bound = (double*)malloc(t.c_count * sizeof(double));
  ReferenceGemm(&t);
  return t;
}

void ReferenceGemm(GemmCase* t) {
  const beast_gemm_problem p = t->p;
  const int cm = p.col_major;
  for (int m = 0; m < p.m; ++m)
    for (int n = 0; n < p.n; ++n) {
      double sum = 0, abs_sum = 0;
      for (int k = 0; k < p.k; ++k) {
        double av = p.trans_a ? t->a[At(cm, p.k, p.m, k, m)] : t->a[At(cm, p.m, p.k, m, k)];
        double bv = p.trans_b ? t->b[At(cm, p.n, p.k, n, k)] : t->b[At(cm, p.k, p.n, k, n)];
        sum += av * bv;
        abs_sum += fabs(av * bv);
      }
      t->ref[At(cm, p.m, p.n, m, n)] = sum;
      t->bound[At(cm, p.m, p.n, m, n)] = abs_sum;
    }
}

void FreeGemmCase(GemmCase* t) { free(t->a), free(t->b), free(t->ref), free(t->bound); }

void CheckOutput(const char* what, beast_status status, const float* y, const double* ref,
                 const double* bound, size_t count) {
  char detail[1200];
  if (status != BEAST_OK) {
    snprintf(detail, sizeof detail, "status %d: %s", (int)status, beast_last_error());
    Report(0, what, detail);
    return;
  }
  double e = MaxRelativeError(y, ref, bound, count);
  snprintf(detail, sizeof detail, "max relative error %.3g", e);
  Report(e <= TOLERANCE, what, detail);
}

static void CheckExplained(beast_status status, const char* text, const char* what,
                           const char* const* expect) {
  int ok = status == BEAST_OK;
  for (int i = 0; ok && expect[i]; ++i) ok = strstr(text, expect[i]) != NULL;
  Report(ok, what, status == BEAST_OK ? text : beast_last_error());
}

void CheckExplainConv(beast_context* ctx, const beast_conv2d_problem* p, const char* what,
                      const char* const* expect) {
  char text[1200];
  beast_status s = beast_explain_conv2d(ctx, p, text, sizeof text);
  CheckExplained(s, text, what, expect);
}

void CheckExplainGemm(beast_context* ctx, const beast_gemm_problem* p, const char* what,
                      const char* const* expect) {
  char text[1200];
  beast_status s = beast_explain_gemm(ctx, p, text, sizeof text);
  CheckExplained(s, text, what, expect);
}

void CheckGemmCall(beast_context* ctx, beast_gemm_problem p, uint64_t seed, const char* what,
                   const char* const* expect) {
  GemmCase t = MakeGemmCase(p, seed);
  float* c = (float*)malloc(t.c_count * sizeof(float));
  for (size_t i = 0; i < t.c_count; ++i) c[i] = NAN;
  char label[256];
  snprintf(label, sizeof label, "%s: result", what);
  CheckOutput(label, beast_gemm_host(ctx, &p, t.a, t.b, c), c, t.ref, t.bound, t.c_count);
  snprintf(label, sizeof label, "%s: explain", what);
  CheckExplainGemm(ctx, &p, label, expect);
  free(c);
  FreeGemmCase(&t);
}

void CheckConvCall(beast_context* ctx, beast_conv2d_problem p, uint64_t seed, const char* what,
                   const char* const* expect) {
  ConvCase t = MakeConvCase(p, seed);
  float* y = (float*)malloc(t.y_count * sizeof(float));
  for (size_t i = 0; i < t.y_count; ++i) y[i] = NAN;
  char label[256];
  snprintf(label, sizeof label, "%s: result", what);
  CheckOutput(label, beast_conv2d_forward_host(ctx, &p, t.x, t.w, t.b, y), y, t.ref, t.bound,
              t.y_count);
  snprintf(label, sizeof label, "%s: explain", what);
  CheckExplainConv(ctx, &p, label, expect);
  free(y);
  FreeConvCase(&t);
}
