/* main.c: checks an exported BeastTuned library through its C API only. Runs
 * every problem export_test.cpp tunes against a naive CPU reference, runs
 * shapes nobody tuned (the generic kernel must be right), misuses the API,
 * and runs the checks of the other files (consumer.h): the ONNX golden cases
 * of the file named by its first argument, and the random shapes, tuned and
 * untuned, of the file named by its second.
 * Prints one "ok ..." or "FAIL ..." line per check; exits 0 only if all pass.
 * The problem lists here and in export_test.cpp must agree. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

static void CheckConv(beast_context* ctx, const ConvCase* t, const char* what) {
  float* y = (float*)malloc(t->y_count * sizeof(float));
  for (size_t i = 0; i < t->y_count; ++i) y[i] = NAN; /* every output must be written */
  beast_status s = beast_conv2d_forward_host(ctx, &t->p, t->x, t->w, t->b, y);
  CheckOutput(what, s, y, t->ref, t->bound, t->y_count);
  free(y);
}

/* Runs p through the host API against the reference, again for the same
 * bits, and asks beast_explain, whose answer must name `expect` (the template
 * for a tuned shape, "generic" for one nobody tuned). */
static void CheckGemm(beast_context* ctx, beast_gemm_problem p, uint64_t seed, const char* expect) {
  GemmCase t = MakeGemmCase(p, seed);
  float* c = (float*)malloc(t.c_count * sizeof(float));
  float* again = (float*)malloc(t.c_count * sizeof(float));
  for (size_t i = 0; i < t.c_count; ++i) c[i] = NAN;
  char what[128];
  snprintf(what, sizeof what, "gemm m=%d n=%d k=%d trans_a=%d trans_b=%d col_major=%d", p.m, p.n,
           p.k, p.trans_a, p.trans_b, p.col_major);
  beast_status s = beast_gemm_host(ctx, &p, t.a, t.b, c);
  CheckOutput(what, s, c, t.ref, t.bound, t.c_count);
  if (s == BEAST_OK) {
    /* A second call reuses the built program and gives the same bits. */
    s = beast_gemm_host(ctx, &p, t.a, t.b, again);
    snprintf(what, sizeof what, "gemm m=%d n=%d k=%d again", p.m, p.n, p.k);
    Report(s == BEAST_OK && memcmp(c, again, t.c_count * sizeof(float)) == 0, what,
           s == BEAST_OK ? "" : beast_last_error());
  }
  snprintf(what, sizeof what, "explain gemm m=%d n=%d k=%d", p.m, p.n, p.k);
  const char* const expected[] = {expect, NULL};
  CheckExplainGemm(ctx, &p, what, expected);
  free(c), free(again);
  FreeGemmCase(&t);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr,
            "usage: %s ONNX_CONV_CASES RANDOM_SHAPES (tests/data/onnx_conv_cases.txt of beast, "
            "random_shapes.txt of export_test)\n",
            argv[0]);
    return 2;
  }
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    printf("FAIL context: %s\n", beast_last_error());
    return 1;
  }
  char detail[1200];
  snprintf(detail, sizeof detail, "%d entries", beast_tuned_entry_count());
  Report(beast_tuned_entry_count() == ReadExpectedEntries(argv[2]), "entry count", detail);

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

  /* Random shapes, tuned and untuned: every feature of the problem structs. */
  CheckRandomShapes(ctx, argv[2]);

  /* Misuse. */
  beast_conv2d_problem bad = c2;
  bad.groups = 3;
  s = beast_conv2d_forward_host(ctx, &bad, t2.x, t2.w, t2.b, out);
  Report(s == BEAST_ERROR_INVALID_ARGUMENT, "groups not dividing c", beast_last_error());
  s = beast_conv2d_forward_host(ctx, &c2, t2.x, t2.w, NULL, out);
  Report(s == BEAST_ERROR_INVALID_ARGUMENT, "bias problem without a bias", beast_last_error());
  const beast_gemm_problem huge = {2147483647, 8, 2147483647, 0, 0, BEAST_DTYPE_F32, 0};
  s = beast_gemm_host(ctx, &huge, t2.x, t2.w, out);
  Report(s == BEAST_ERROR_INVALID_ARGUMENT &&
             strstr(beast_last_error(), "gemm: a would hold more than 2^60 elements") != NULL,
         "gemm too large to address", beast_last_error());
  /* Padding that makes a side of the output more than an int holds. */
  beast_conv2d_problem padded = {
      1, 1, 1, 1, 1, 1, 1, 1, 1, 1100000000, 0, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0};
  s = beast_conv2d_forward_host(ctx, &padded, t2.x, t2.w, NULL, out);
  Report(s == BEAST_ERROR_INVALID_ARGUMENT &&
             strstr(beast_last_error(),
                    "conv2d: the output would be 2200000001 x 1 pixels, more than 2147483647 a "
                    "side") != NULL,
         "conv2d output side beyond an int", beast_last_error());
  const char* info = beast_export_info();
  Report(strncmp(info, "beast export\nbeast_version ", 27) == 0 &&
             strstr(info, "\ntoolchain jinja2 ") != NULL && strstr(info, "\nentry\t") != NULL,
         "beast_export_info", "");
  beast_context* none = NULL;
  s = beast_context_create(BEAST_BACKEND_OPENCL, 1000, &none);
  Report(s == BEAST_ERROR_DEVICE && none == NULL, "device 1000", beast_last_error());

  CheckDispatch(ctx);
  CheckGolden(ctx, argv[1]);
  CountCache(ctx);
  beast_context_destroy(ctx);
  CheckDeviceApi();
  CheckThreads();
  PrintCacheTotals();
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
