/* main.c of the dtype consumer: calls an exported library in f64, f16 and
 * bf16 through the host API, on the shapes export_dtype_test.cpp tuned (an
 * exact tuned kernel must serve them) and on shapes nobody tuned (the
 * dtype's generic kernel must), and checks every output against a CPU
 * reference in double of the inputs as the dtype holds them. f16 and bf16
 * buffers are uint16_t bit patterns, converted here by code of its own (round
 * to nearest even). Prints one "ok ..." or "FAIL ..." line per check; exits 0
 * only if all pass. The tuned problems are the test's: keep them in step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

/* float -> binary16 bits, round to nearest even (inputs here are normal or
 * zero, |v| < 2: no overflow). */
static uint16_t ToF16(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  const uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
  const int e = (int)(mag >> 23) - 127;
  if (e < -24) return (uint16_t)sign; /* far below the smallest subnormal */
  if (e < -14) {                      /* subnormal: units of 2^-24 */
    const double units = ldexp(fabs((double)v), 24);
    double r = nearbyint(units); /* the default rounding mode: to nearest even */
    return (uint16_t)(sign | (uint32_t)r);
  }
  const uint32_t rebased = mag - (112u << 23), rest = rebased & 0x1fffu;
  uint32_t h = rebased >> 13;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return (uint16_t)(sign | h);
}

static float FromF16(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return (float)((h & 0x8000) ? -v : v);
}

static uint16_t ToBf16(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float FromBf16(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static const char* Name(beast_dtype d) {
  return d == BEAST_DTYPE_F64 ? "f64" : d == BEAST_DTYPE_F16 ? "f16" : "bf16";
}

/* The values as dtype d holds them (rounded in place), and as its buffer. */
static void* ToDevice(beast_dtype d, float* v, size_t n) {
  if (!v) return NULL;
  if (d == BEAST_DTYPE_F64) {
    double* out = (double*)malloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; ++i) out[i] = v[i];
    return out;
  }
  uint16_t* out = (uint16_t*)malloc((n ? n : 1) * sizeof(uint16_t));
  for (size_t i = 0; i < n; ++i) {
    out[i] = d == BEAST_DTYPE_F16 ? ToF16(v[i]) : ToBf16(v[i]);
    v[i] = d == BEAST_DTYPE_F16 ? FromF16(out[i]) : FromBf16(out[i]);
  }
  return out;
}

/* An output buffer of n elements of d, every one NaN (so each must be written). */
static void* NanOutput(beast_dtype d, size_t n) {
  if (d == BEAST_DTYPE_F64) {
    double* y = (double*)malloc(n * sizeof(double));
    for (size_t i = 0; i < n; ++i) y[i] = NAN;
    return y;
  }
  uint16_t* y = (uint16_t*)malloc(n * sizeof(uint16_t));
  for (size_t i = 0; i < n; ++i) y[i] = 0xffff; /* NaN in both 16-bit formats */
  return y;
}

static double Element(beast_dtype d, const void* y, size_t i) {
  if (d == BEAST_DTYPE_F64) return ((const double*)y)[i];
  const uint16_t b = ((const uint16_t*)y)[i];
  return d == BEAST_DTYPE_F16 ? FromF16(b) : FromBf16(b);
}

/* Checks y against the reference: |y - ref| <= tol * bound + tiny, tol the
 * dtype's (f64: sums of tens of terms in double; f16, bf16: the float sum,
 * then one rounding into 16 bits, 2^-11 or 2^-8 of |ref| <= bound, doubled),
 * tiny half of f16's smallest subnormal for outputs near zero. */
static void CheckResult(const char* what, beast_dtype d, beast_status s, const void* y,
                        const double* ref, const double* bound, size_t n) {
  char detail[1200];
  if (s != BEAST_OK) {
    snprintf(detail, sizeof detail, "status %d: %s", (int)s, beast_last_error());
    Report(0, what, detail);
    return;
  }
  const double tol = d == BEAST_DTYPE_F64 ? 1e-13 : d == BEAST_DTYPE_F16 ? 0x1p-10 : 0x1p-7;
  const double tiny = d == BEAST_DTYPE_F16 ? 0x1p-25 : 0;
  size_t wrong = 0, worst_at = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = fabs(Element(d, y, i) - ref[i]) / (tol * bound[i] + tiny + 1e-300);
    if (!(e <= 1)) ++wrong;
    if (!(e <= worst)) worst = e, worst_at = i;
  }
  snprintf(detail, sizeof detail, "%zu of %zu wrong, worst %.3g of the bound at %zu", wrong, n,
           worst, worst_at);
  Report(wrong == 0, what, detail);
}

static void Explained(beast_status s, const char* text, const char* what, const char* expect) {
  char label[256];
  snprintf(label, sizeof label, "%s: explain", what);
  Report(s == BEAST_OK && strstr(text, expect) != NULL, label,
         s == BEAST_OK ? text : beast_last_error());
}

/* Runs p in its dtype; beast_explain must name `expect`. */
static void CheckGemm(beast_context* ctx, beast_gemm_problem p, uint64_t seed, const char* expect) {
  GemmCase t = MakeGemmCase(p, seed);
  void* a = ToDevice(p.dtype, t.a, t.a_count);
  void* b = ToDevice(p.dtype, t.b, t.b_count);
  ReferenceGemm(&t); /* of the rounded inputs */
  void* c = NanOutput(p.dtype, t.c_count);
  char what[160];
  snprintf(what, sizeof what, "%s gemm m=%d n=%d k=%d trans_a=%d trans_b=%d", Name(p.dtype), p.m,
           p.n, p.k, p.trans_a, p.trans_b);
  CheckResult(what, p.dtype, beast_gemm_host(ctx, &p, a, b, c), c, t.ref, t.bound, t.c_count);
  char text[1200];
  Explained(beast_explain_gemm(ctx, &p, text, sizeof text), text, what, expect);
  free(a), free(b), free(c);
  FreeGemmCase(&t);
}

static void CheckConv(beast_context* ctx, beast_conv2d_problem p, uint64_t seed,
                      const char* expect) {
  ConvCase t = MakeConvCase(p, seed);
  void* x = ToDevice(p.dtype, t.x, t.x_count);
  void* w = ToDevice(p.dtype, t.w, t.w_count);
  void* b = ToDevice(p.dtype, t.b, (size_t)p.k);
  ReferenceConv(&t); /* of the rounded inputs */
  void* y = NanOutput(p.dtype, t.y_count);
  char what[160];
  snprintf(what, sizeof what, "%s conv2d n=%d c=%d h=%d w=%d k=%d %s%s", Name(p.dtype), p.n, p.c,
           p.h, p.w, p.k, p.layout == BEAST_LAYOUT_NHWC ? "NHWC" : "NCHW", p.bias ? " bias" : "");
  CheckResult(what, p.dtype, beast_conv2d_forward_host(ctx, &p, x, w, b, y), y, t.ref, t.bound,
              t.y_count);
  char text[1200];
  Explained(beast_explain_conv2d(ctx, &p, text, sizeof text), text, what, expect);
  free(x), free(w), free(b), free(y);
  FreeConvCase(&t);
}

int main(void) {
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    printf("FAIL context: %s\n", beast_last_error());
    return 1;
  }
  /* Tuned (export_dtype_test.cpp's kDtypeProblems), each by its template. */
  const beast_gemm_problem g64 = {33, 17, 29, 1, 0, BEAST_DTYPE_F64, 0};
  const beast_gemm_problem g16 = {40, 24, 72, 0, 1, BEAST_DTYPE_F16, 0};
  const beast_gemm_problem gbf = {40, 24, 72, 0, 0, BEAST_DTYPE_BF16, 1};
  const beast_conv2d_problem c64 = {
      2, 4, 9, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F64, 1};
  const beast_conv2d_problem c16 = {
      1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F16, 0};
  const beast_conv2d_problem cbf = {
      2, 8, 9, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, BEAST_LAYOUT_NHWC, BEAST_DTYPE_BF16, 1};
  CheckGemm(ctx, g64, 11, "exact tuned: gemm/tiled");
  CheckGemm(ctx, g16, 21, "exact tuned: gemm/tiled");
  CheckGemm(ctx, gbf, 31, "exact tuned: gemm/tiled");
  CheckConv(ctx, c64, 41, "exact tuned: conv2d/direct_nchw");
  CheckConv(ctx, c16, 51, "exact tuned: conv2d/direct_nchw");
  CheckConv(ctx, cbf, 61, "exact tuned: conv2d/direct_nhwc");

  /* Untuned shapes: each dtype's generic kernel. */
  beast_gemm_problem g = g64;
  g.m = 35;
  CheckGemm(ctx, g, 71, "generic kernel beast_generic_gemm_f64");
  g = g16, g.n = 25;
  CheckGemm(ctx, g, 81, "generic kernel beast_generic_gemm_f16");
  g = gbf, g.k = 70;
  CheckGemm(ctx, g, 91, "generic kernel beast_generic_gemm_bf16");
  beast_conv2d_problem c = c64;
  c.layout = BEAST_LAYOUT_NHWC;
  CheckConv(ctx, c, 101, "generic kernel beast_generic_conv2d_f64");
  c = c16, c.bias = 1;
  CheckConv(ctx, c, 111, "generic kernel beast_generic_conv2d_f16");
  c = cbf, c.layout = BEAST_LAYOUT_NCHW;
  CheckConv(ctx, c, 121, "generic kernel beast_generic_conv2d_bf16");

  /* A dtype the API does not know. */
  beast_gemm_problem bad = g16;
  bad.dtype = (beast_dtype)7;
  uint16_t one[1] = {0};
  beast_status s = beast_gemm_host(ctx, &bad, one, one, one);
  Report(
      s == BEAST_ERROR_INVALID_ARGUMENT && strcmp(beast_last_error(), "gemm: unknown dtype 7") == 0,
      "unknown dtype", beast_last_error());

  beast_context_destroy(ctx);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
