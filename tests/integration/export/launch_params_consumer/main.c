/* Runs gemm M=9,N=13,K=37 through an exported library whose tuned entry
 * takes local memory sized at launch (or, given another template's name as
 * its argument, that template's: test/staged's launches before its kernel),
 * prints beast_explain's line and the largest error against a
 * double-precision reference, and exits 0 only when the tuned entry of that
 * template ran and every output is within float rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beast_tuned.h"

enum { M = 9, N = 13, K = 37 };

int main(int argc, char** argv) {
  const char* template_name = argc > 1 ? argv[1] : "test/launch_params";
  char expected[256];
  snprintf(expected, sizeof expected, "exact tuned: %s", template_name);
  static float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 7 % 23) - 11) / 8.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 5 % 19) - 9) / 4.0f;
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    fprintf(stderr, "context: %s\n", beast_last_error());
    return 1;
  }
  beast_gemm_problem problem = {M, N, K, 0, 0, BEAST_DTYPE_F32, 0};
  char why[1024];
  beast_explain_gemm(ctx, &problem, why, sizeof why);
  printf("%s\n", why);
  if (beast_gemm_host(ctx, &problem, a, b, c) != BEAST_OK) {
    fprintf(stderr, "gemm: %s\n", beast_last_error());
    beast_context_destroy(ctx);
    return 1;
  }
  double worst = 0;
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double ref = 0, scale = 0;
      for (int k = 0; k < K; ++k) {
        ref += (double)a[m * K + k] * b[k * N + n];
        scale += fabs((double)a[m * K + k] * b[k * N + n]);
      }
      double err = fabs(c[m * N + n] - ref) / (scale > 0 ? scale : 1);
      if (err > worst) worst = err;
    }
  }
  printf("max relative error %g\n", worst);
  beast_context_destroy(ctx);
  return strstr(why, expected) != NULL && worst <= 2 * K * 6e-8 ? 0 : 1;
}
