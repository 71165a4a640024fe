/* example.c: the smallest program that uses this library. It opens the
 * first OpenCL device, multiplies two random 64x48 and 48x40 float matrices
 * through the host API, checks the product against a plain loop, and prints
 * which kernel ran (beast_explain_gemm): a tuned one if this shape was
 * tuned, else the generic kernel. Build it against the installed library,
 *   cc example.c $(pkg-config --static --cflags --libs beast_tuned) -lm -o beast_example
 * (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a custom install prefix), or with
 * CMake: find_package(BeastTuned) and link BeastTuned::beast_tuned.
 * Exits 0 when the product is right. */
#include <beast_tuned.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  enum { M = 64, N = 40, K = 48 };
  static float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (float)(rand() % 17 - 8) / 8;
  for (int i = 0; i < K * N; ++i) b[i] = (float)(rand() % 13 - 6) / 6;

  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    fprintf(stderr, "no device: %s\n", beast_last_error());
    return 1;
  }
  /* c (M x N) = a (M x K) * b (K x N), row-major, no transposition. */
  const beast_gemm_problem p = {M, N, K, 0, 0, BEAST_DTYPE_F32, 0};
  if (beast_gemm_host(ctx, &p, a, b, c) != BEAST_OK) {
    fprintf(stderr, "gemm failed: %s\n", beast_last_error());
    beast_context_destroy(ctx);
    return 1;
  }
  char why[1024];
  beast_explain_gemm(ctx, &p, why, sizeof why);
  beast_context_destroy(ctx);

  double worst = 0;
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += (double)a[m * K + k] * b[k * N + n];
      const double error = fabs(c[m * N + n] - sum);
      if (error > worst) worst = error;
    }
  }
  printf("%s\nlargest error %.3g: %s\n", why, worst, worst < 1e-4 ? "ok" : "WRONG");
  return worst < 1e-4 ? 0 : 1;
}
