/* beast_generic.cl: the fallback kernels for shapes nobody tuned, one per op
 * and dtype. Each takes the whole shape as run-time arguments and computes
 * one output per work-item: slow, but correct for every problem the API
 * accepts. `beast export` puts this text into the library
 * (beast_generic_source, built by OpenCL) and, with NVRTC, its PTX for CUDA
 * GPUs (beast_generic_ptx): the lines below spell the few CUDA differences
 * for NVRTC (__CUDACC_RTC__). Index arithmetic in long: N*K*P*Q outputs may
 * pass 2^31. The filter of NHWC is [K][R][S][C/groups], of NCHW
 * [K][C/groups][R][S]. A column-major matrix is its transpose stored
 * row-major, so col-major flips how A and B are read and C is written
 * transposed. Kernels: beast_generic_conv2d / beast_generic_gemm (f32), and
 * the same names with _f64, _f16, _bf16. f16 and bf16 are storage types
 * (uint16 bit patterns) summed in float, stored rounded to nearest even; the
 * f64 kernels exist only where the device has double precision. */
#ifdef __CUDACC_RTC__
#define __kernel extern "C" __global__
#define __global
#define get_global_id(d) ((long)blockIdx.x * blockDim.x + threadIdx.x)
#define BEAST_FN __device__ __forceinline__
#define BEAST_FMA32 fmaf
#define BEAST_F64 1
typedef unsigned short ushort;
typedef unsigned short beast_half;
BEAST_FN float beast_load_f16(const beast_half* p, long i) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(p[i]));
  return f;
}
BEAST_FN void beast_store_f16(beast_half* p, long i, float v) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
  p[i] = h;
}
BEAST_FN float beast_bits_to_float(unsigned u) { return __uint_as_float(u); }
BEAST_FN unsigned beast_float_to_bits(float f) { return __float_as_uint(f); }
#else
#define BEAST_FN inline
#define BEAST_FMA32 fma
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define BEAST_F64 1
#endif
typedef half beast_half;
BEAST_FN float beast_load_f16(__global const beast_half* p, long i) { return vload_half(i, p); }
BEAST_FN void beast_store_f16(__global beast_half* p, long i, float v) { vstore_half_rte(v, i, p); }
BEAST_FN float beast_bits_to_float(uint u) { return as_float(u); }
BEAST_FN uint beast_float_to_bits(float f) { return as_uint(f); }
#endif

/* bf16: the high half of a float; round to nearest even, NaN stays NaN. */
BEAST_FN float beast_load_bf16(__global const ushort* p, long i) {
  return beast_bits_to_float((unsigned)p[i] << 16);
}
BEAST_FN void beast_store_bf16(__global ushort* p, long i, float v) {
  const unsigned u = beast_float_to_bits(v);
  p[i] = (ushort)((u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u
                                                  : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

#define BEAST_LOAD_PLAIN(p, i) (p)[i]
#define BEAST_STORE_PLAIN(p, i, v) ((p)[i] = (v))

/* The conv2d kernel NAME over buffers of ST, summing in AT with FMA. */
#define BEAST_GENERIC_CONV2D(NAME, ST, AT, FMA, LOAD, STORE)                                   \
  __kernel void NAME(__global const ST* x, __global const ST* w, __global const ST* b,         \
                     __global ST* y, int N, int C, int H, int W, int K, int R, int S, int P,   \
                     int Q, int sh, int sw, int ph, int pw, int dh, int dw, int groups,        \
                     int nhwc, int bias) {                                                     \
    const long i = get_global_id(0);                                                           \
    if (i >= (long)N * K * P * Q) return;                                                      \
    int n, k, p, q;                                                                            \
    if (nhwc) {                                                                                \
      k = i % K; q = (i / K) % Q; p = (i / ((long)K * Q)) % P; n = i / ((long)K * Q * P);      \
    } else {                                                                                   \
      q = i % Q; p = (i / Q) % P; k = (i / ((long)Q * P)) % K; n = i / ((long)Q * P * K);      \
    }                                                                                          \
    const int cg = C / groups, g = k / (K / groups);                                           \
    AT acc = bias ? (AT)LOAD(b, k) : (AT)0;                                                    \
    for (int c = 0; c < cg; ++c) {                                                             \
      const int ci = g * cg + c;                                                               \
      for (int r = 0; r < R; ++r) {                                                            \
        const int ih = p * sh - ph + r * dh;                                                   \
        if (ih < 0 || ih >= H) continue;                                                       \
        for (int s = 0; s < S; ++s) {                                                          \
          const int iw = q * sw - pw + s * dw;                                                 \
          if (iw < 0 || iw >= W) continue;                                                     \
          const AT xv = nhwc ? LOAD(x, (((long)n * H + ih) * W + iw) * C + ci)                 \
                             : LOAD(x, (((long)n * C + ci) * H + ih) * W + iw);                \
          const AT wv = nhwc ? LOAD(w, (((long)k * R + r) * S + s) * cg + c)                   \
                             : LOAD(w, (((long)k * cg + c) * R + r) * S + s);                  \
          acc = FMA(xv, wv, acc);                                                              \
        }                                                                                      \
      }                                                                                        \
    }                                                                                          \
    STORE(y, i, acc);                                                                          \
  }

/* The gemm kernel NAME over buffers of ST, summing in AT with FMA. */
#define BEAST_GENERIC_GEMM(NAME, ST, AT, FMA, LOAD, STORE)                                     \
  __kernel void NAME(__global const ST* a, __global const ST* b, __global ST* c, int M, int N, \
                     int K, int ta, int tb, int cm) {                                          \
    const long i = get_global_id(0);                                                           \
    if (i >= (long)M * N) return;                                                              \
    const int m = cm ? i % M : i / N;                                                          \
    const int n = cm ? i / M : i % N;                                                          \
    const int a_kmajor = ta != cm, b_nmajor = tb != cm;                                        \
    AT acc = (AT)0;                                                                            \
    for (int k = 0; k < K; ++k) {                                                              \
      const AT av = a_kmajor ? LOAD(a, (long)k * M + m) : LOAD(a, (long)m * K + k);            \
      const AT bv = b_nmajor ? LOAD(b, (long)n * K + k) : LOAD(b, (long)k * N + n);            \
      acc = FMA(av, bv, acc);                                                                  \
    }                                                                                          \
    STORE(c, i, acc);                                                                          \
  }

BEAST_GENERIC_CONV2D(beast_generic_conv2d, float, float, BEAST_FMA32, BEAST_LOAD_PLAIN,
                     BEAST_STORE_PLAIN)
BEAST_GENERIC_GEMM(beast_generic_gemm, float, float, BEAST_FMA32, BEAST_LOAD_PLAIN,
                   BEAST_STORE_PLAIN)
BEAST_GENERIC_CONV2D(beast_generic_conv2d_f16, beast_half, float, BEAST_FMA32, beast_load_f16,
                     beast_store_f16)
BEAST_GENERIC_GEMM(beast_generic_gemm_f16, beast_half, float, BEAST_FMA32, beast_load_f16,
                   beast_store_f16)
BEAST_GENERIC_CONV2D(beast_generic_conv2d_bf16, ushort, float, BEAST_FMA32, beast_load_bf16,
                     beast_store_bf16)
BEAST_GENERIC_GEMM(beast_generic_gemm_bf16, ushort, float, BEAST_FMA32, beast_load_bf16,
                   beast_store_bf16)
#ifdef BEAST_F64
BEAST_GENERIC_CONV2D(beast_generic_conv2d_f64, double, double, fma, BEAST_LOAD_PLAIN,
                     BEAST_STORE_PLAIN)
BEAST_GENERIC_GEMM(beast_generic_gemm_f64, double, double, fma, BEAST_LOAD_PLAIN,
                   BEAST_STORE_PLAIN)
#endif
