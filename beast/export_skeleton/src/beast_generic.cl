/* beast_generic.cl: the fallback kernels for shapes nobody tuned, one per op.
 * Each takes the whole shape as run-time arguments and computes one output
 * per work-item: slow, but correct for every problem the API accepts. `beast
 * export` puts this text into the library (beast_generic_source, built by
 * OpenCL) and, with NVRTC, its PTX for CUDA GPUs (beast_generic_ptx): the
 * lines below spell the few CUDA differences for NVRTC (__CUDACC_RTC__).
 * Index arithmetic in long: N*K*P*Q outputs may pass 2^31. The filter of
 * NHWC is [K][R][S][C/groups], of NCHW [K][C/groups][R][S]. A column-major
 * matrix is its transpose stored row-major, so col-major flips how A and B
 * are read and C is written transposed. */
#ifdef __CUDACC_RTC__
#define __kernel extern "C" __global__
#define __global
#define get_global_id(d) ((long)blockIdx.x * blockDim.x + threadIdx.x)
#define fma fmaf
#endif
__kernel void beast_generic_conv2d(__global const float* x, __global const float* w,
    __global const float* b, __global float* y, int N, int C, int H, int W, int K,
    int R, int S, int P, int Q, int sh, int sw, int ph, int pw, int dh, int dw,
    int groups, int nhwc, int bias) {
  const long i = get_global_id(0);
  if (i >= (long)N * K * P * Q) return;
  int n, k, p, q;
  if (nhwc) {
    k = i % K; q = (i / K) % Q; p = (i / ((long)K * Q)) % P; n = i / ((long)K * Q * P);
  } else {
    q = i % Q; p = (i / Q) % P; k = (i / ((long)Q * P)) % K; n = i / ((long)Q * P * K);
  }
  const int cg = C / groups, g = k / (K / groups);
  float acc = bias ? b[k] : 0.0f;
  for (int c = 0; c < cg; ++c) {
    const int ci = g * cg + c;
    for (int r = 0; r < R; ++r) {
      const int ih = p * sh - ph + r * dh;
      if (ih < 0 || ih >= H) continue;
      for (int s = 0; s < S; ++s) {
        const int iw = q * sw - pw + s * dw;
        if (iw < 0 || iw >= W) continue;
        const float xv = nhwc ? x[(((long)n * H + ih) * W + iw) * C + ci]
                              : x[(((long)n * C + ci) * H + ih) * W + iw];
        const float wv = nhwc ? w[(((long)k * R + r) * S + s) * cg + c]
                              : w[(((long)k * cg + c) * R + r) * S + s];
        acc = fma(xv, wv, acc);
      }
    }
  }
  y[i] = acc;
}
__kernel void beast_generic_gemm(__global const float* a, __global const float* b,
    __global float* c, int M, int N, int K, int ta, int tb, int cm) {
  const long i = get_global_id(0);
  if (i >= (long)M * N) return;
  const int m = cm ? i % M : i / N;
  const int n = cm ? i / M : i % N;
  const int a_kmajor = ta != cm, b_nmajor = tb != cm;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    const float av = a_kmajor ? a[(long)k * M + m] : a[(long)m * K + k];
    const float bv = b_nmajor ? b[(long)n * K + k] : b[(long)k * N + n];
    acc = fma(av, bv, acc);
  }
  c[i] = acc;
}
