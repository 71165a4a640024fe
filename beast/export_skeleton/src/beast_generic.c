/* beast_generic.c: the fallback for shapes nobody tuned. One plain OpenCL
 * kernel per op takes the whole shape as run-time arguments and computes one
 * output per work-item: slow, but correct for every problem the API accepts,
 * so an untuned shape still gets its answer (and beast_explain says that the
 * generic kernel runs). Tuned kernels bake their shape in and cannot serve
 * another one. */
#include "beast_runtime.h"

/* Index arithmetic in long: N*K*P*Q outputs may pass 2^31. The filter of
 * NHWC is [K][R][S][C/groups], of NCHW [K][C/groups][R][S]. A column-major
 * matrix is its transpose stored row-major, so col-major flips how A and B
 * are read and C is written transposed. */
static const char kGenericSource[] =
    "__kernel void beast_generic_conv2d(__global const float* x, __global const float* w,\n"
    "    __global const float* b, __global float* y, int N, int C, int H, int W, int K,\n"
    "    int R, int S, int P, int Q, int sh, int sw, int ph, int pw, int dh, int dw,\n"
    "    int groups, int nhwc, int bias) {\n"
    "  const long i = get_global_id(0);\n"
    "  if (i >= (long)N * K * P * Q) return;\n"
    "  int n, k, p, q;\n"
    "  if (nhwc) {\n"
    "    k = i % K; q = (i / K) % Q; p = (i / ((long)K * Q)) % P; n = i / ((long)K * Q * P);\n"
    "  } else {\n"
    "    q = i % Q; p = (i / Q) % P; k = (i / ((long)Q * P)) % K; n = i / ((long)Q * P * K);\n"
    "  }\n"
    "  const int cg = C / groups, g = k / (K / groups);\n"
    "  float acc = bias ? b[k] : 0.0f;\n"
    "  for (int c = 0; c < cg; ++c) {\n"
    "    const int ci = g * cg + c;\n"
    "    for (int r = 0; r < R; ++r) {\n"
    "      const int ih = p * sh - ph + r * dh;\n"
    "      if (ih < 0 || ih >= H) continue;\n"
    "      for (int s = 0; s < S; ++s) {\n"
    "        const int iw = q * sw - pw + s * dw;\n"
    "        if (iw < 0 || iw >= W) continue;\n"
    "        const float xv = nhwc ? x[(((long)n * H + ih) * W + iw) * C + ci]\n"
    "                              : x[(((long)n * C + ci) * H + ih) * W + iw];\n"
    "        const float wv = nhwc ? w[(((long)k * R + r) * S + s) * cg + c]\n"
    "                              : w[(((long)k * cg + c) * R + r) * S + s];\n"
    "        acc = fma(xv, wv, acc);\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  y[i] = acc;\n"
    "}\n"
    "__kernel void beast_generic_gemm(__global const float* a, __global const float* b,\n"
    "    __global float* c, int M, int N, int K, int ta, int tb, int cm) {\n"
    "  const long i = get_global_id(0);\n"
    "  if (i >= (long)M * N) return;\n"
    "  const int m = cm ? i % M : i / N;\n"
    "  const int n = cm ? i / M : i % N;\n"
    "  const int a_kmajor = ta != cm, b_nmajor = tb != cm;\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < K; ++k) {\n"
    "    const float av = a_kmajor ? a[(long)k * M + m] : a[(long)m * K + k];\n"
    "    const float bv = b_nmajor ? b[(long)n * K + k] : b[(long)k * N + n];\n"
    "    acc = fma(av, bv, acc);\n"
    "  }\n"
    "  c[i] = acc;\n"
    "}\n";

beast_status beast_generic_program(beast_context* ctx, cl_program* program) {
  beast_status status = BEAST_OK;
  pthread_mutex_lock(&ctx->mutex);
  if (ctx->generic_failed) {
    status = beast_fail(BEAST_ERROR_BUILD, "the generic fallback kernels failed to build on %s",
                        ctx->device_name);
  } else if (!ctx->generic_program) {
    char line[512];
    cl_int err =
        beast_build_program(ctx, kGenericSource, "", &ctx->generic_program, line, sizeof line);
    if (err != CL_SUCCESS) {
      ctx->generic_failed = 1;
      status = beast_fail(BEAST_ERROR_BUILD,
                          "the generic fallback kernels do not build on %s (error %d): %s",
                          ctx->device_name, (int)err, line);
    }
  }
  *program = ctx->generic_program;
  pthread_mutex_unlock(&ctx->mutex);
  return status;
}
