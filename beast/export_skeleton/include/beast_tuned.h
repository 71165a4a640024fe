/* beast_tuned.h: the C API of a kernel library exported by `beast export`.
 * A call runs, in tiers: the kernel beast tuned for exactly its shape on this
 * device; else the winning config of the nearest tuned shape, rendered for
 * this one at export time; else one tuned on another device; else a generic
 * kernel, correct for every shape (beast_explain says which and why). C99;
 * needs no OpenCL header (OpenCL handles are passed as void*). Functions
 * return a beast_status; on failure beast_last_error() says why in one line. */
#ifndef BEAST_TUNED_H_
#define BEAST_TUNED_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum beast_status {
  BEAST_OK = 0,
  BEAST_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, an impossible shape, an unknown enum */
  BEAST_ERROR_NOT_TUNED = 2,        /* no tuned kernel (not returned since the generic fallback) */
  BEAST_ERROR_DEVICE = 3,           /* no such device, or it refused a context / memory */
  BEAST_ERROR_BUILD = 4,            /* the device failed to compile the tuned kernel */
  BEAST_ERROR_LAUNCH = 5            /* the device refused or failed the kernel launch */
} beast_status;

typedef enum beast_backend { BEAST_BACKEND_OPENCL = 0, BEAST_BACKEND_CUDA = 1 } beast_backend;

typedef enum beast_layout { BEAST_LAYOUT_NCHW = 0, BEAST_LAYOUT_NHWC = 1 } beast_layout;

/* The element type of a call's buffers. f16 (IEEE binary16) and bf16 (the
 * high 16 bits of a float) are storage types: their buffers hold uint16_t
 * bit patterns, the kernels sum in float and round the result to nearest
 * even. f64 needs a device with double precision (OpenCL: cl_khr_fp64). */
typedef enum beast_dtype {
  BEAST_DTYPE_F32 = 0, /* float */
  BEAST_DTYPE_F64 = 1, /* double */
  BEAST_DTYPE_F16 = 2, /* uint16_t, binary16 bits */
  BEAST_DTYPE_BF16 = 3 /* uint16_t, bfloat16 bits */
} beast_dtype;

/* Forward 2D convolution (cross-correlation), as beast tunes it:
 *   NCHW: x[n][c][h][w], w[k][c/groups][r][s], y[n][k][p][q]
 *   NHWC: x[n][h][w][c], w[k][r][s][c/groups], y[n][p][q][k]
 * with p = (h + 2*pad_h - dilation_h*(r-1) - 1) / stride_h + 1 (q alike),
 * plus b[k] on every output of channel k when bias is 1. */
typedef struct beast_conv2d_problem {
  int n, c, h, w, k, r, s, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups;
  beast_layout layout;
  beast_dtype dtype;
  int bias; /* 0 or 1; last, so initializers that stop before it mean no bias */
} beast_conv2d_problem;

/* c (m x n) = sum_k A(m,k) B(k,n); a is stored m x k (k x m when trans_a),
 * b is stored k x n (n x k when trans_b); every matrix row-major, or
 * column-major (BLAS order) when col_major is 1. */
typedef struct beast_gemm_problem {
  int m, n, k, trans_a, trans_b;
  beast_dtype dtype;
  int col_major; /* last, so initializers that stop before it mean row-major */
} beast_gemm_problem;

/* One device opened for work. Kernels are compiled on first use and kept for
 * the context's life. A context may be used from several threads at once. */
typedef struct beast_context beast_context;

/* Opens device `device_index` of `backend`: for OpenCL, the devices of every
 * platform, platforms in order, each platform's devices in order (as
 * `beast devices` lists them); for CUDA, the GPUs as the driver numbers them
 * (libcuda.so.1 is opened at run time: without it this fails with
 * BEAST_ERROR_DEVICE and says so). A CUDA context works in the GPU's primary
 * context, so device pointers the application allocated with the CUDA
 * runtime on that GPU can be passed to the calls below. */
beast_status beast_context_create(beast_backend backend, int device_index, beast_context** ctx);
void beast_context_destroy(beast_context* ctx);

/* Wraps an OpenCL context the caller already has (a cl_context and one of
 * its cl_device_id, passed as void*), so the caller's own buffers and queues
 * work with beast_conv2d_forward and beast_gemm. The context is retained until
 * beast_context_destroy; beast adds one in-order queue of its own to it. */
beast_status beast_context_create_opencl(void* cl_context, void* cl_device_id, beast_context** ctx);

/* The OpenCL objects behind ctx (any output may be NULL): its cl_context,
 * cl_device_id and own cl_command_queue, not retained for the caller. Device
 * buffers for the calls below must belong to that cl_context. */
beast_status beast_context_opencl(beast_context* ctx, void** cl_context, void** cl_device_id,
                                  void** cl_command_queue);

/* The CUDA objects behind a CUDA ctx (any output may be NULL): its CUcontext
 * (the GPU's primary context), CUdevice and own CUstream. */
beast_status beast_context_cuda(beast_context* ctx, void** cu_context, int* cu_device,
                                void** cu_stream);

/* Device-memory entry points. On a CUDA context x, w, bias, y (and a, b, c)
 * are device pointers (CUdeviceptr as void*) of the context's GPU and
 * `queue` is a CUstream (NULL: ctx's own stream, waited for; CU_STREAM_LEGACY or
 * CU_STREAM_PER_THREAD: that default stream of ctx's context, not waited
 * for); otherwise they
 * are cl_mem buffers
 * of ctx's cl_context, passed as void*, each at least as large as the problem
 * needs (elements of problem->dtype). `queue` is a cl_command_queue of ctx's context and device:
 * the kernel is enqueued on it and the call returns without waiting (order it
 * after your writes and before your reads the way your queue does: an in-order
 * queue does it for you). With queue NULL the call runs on ctx's own queue and
 * returns when the kernel has finished. A shape nobody tuned runs a generic
 * kernel that is correct for every shape but not tuned (beast_explain says
 * which runs and why). `bias` (k values) is read when problem->bias is 1 and
 * must then not be NULL; otherwise pass NULL. */
beast_status beast_conv2d_forward(beast_context* ctx, const beast_conv2d_problem* problem, void* x,
                                  void* w, void* bias, void* y, void* queue);
beast_status beast_gemm(beast_context* ctx, const beast_gemm_problem* problem, void* a, void* b,
                        void* c, void* queue);

/* Weights prepared once for many convolutions. Some tuned kernels transform
 * the weights before the convolution proper (Winograd's filter transform,
 * a config's `prepare` stages): their tuned time is that of the convolution
 * with the weights already transformed, and a plain beast_conv2d_forward
 * transforms them again in every call. beast_conv2d_prepare picks the kernel
 * a call with this problem would run and, when it has such stages, runs
 * them once, into device memory the handle owns (a tuned entry's
 * workspace); beast_conv2d_forward_prepared then runs only the rest. With a
 * kernel that has none (or the generic one) the handle just remembers the
 * problem and weights, and its calls are plain beast_conv2d_forward calls.
 * The handle refers to w and bias (device buffers as beast_conv2d_forward
 * takes them; not copied): keep them alive while it lives. What it prepared
 * is a snapshot: after the weights change, prepare again. Calls with one
 * handle share its workspace, so they must run one after another (one
 * in-order queue or stream, or NULL); calls with different handles may run
 * at once. The prepare stages run on `queue` and are waited for. */
typedef struct beast_conv2d_prepared beast_conv2d_prepared;
beast_status beast_conv2d_prepare(beast_context* ctx, const beast_conv2d_problem* problem, void* w,
                                  void* bias, void* queue, beast_conv2d_prepared** prepared);
/* The convolution of x with the prepared weights into y, as
 * beast_conv2d_forward(ctx, problem, x, w, bias, y, queue) computes it. A
 * prepared kernel that fails here is passed over as there: the call then
 * runs what a plain call would. */
beast_status beast_conv2d_forward_prepared(beast_context* ctx, beast_conv2d_prepared* prepared,
                                           void* x, void* y, void* queue);
/* Frees the handle and its workspace (NULL: nothing), after the work of
 * ctx's device that may use it has finished and before ctx is destroyed. */
void beast_conv2d_prepared_destroy(beast_conv2d_prepared* prepared);

/* Host-memory entry points: copy the inputs to the device, run the call above
 * on ctx's own queue, copy the output back. Blocking. The arrays hold
 * elements of problem->dtype: float, double, or uint16_t for f16 and bf16. */
beast_status beast_conv2d_forward_host(beast_context* ctx, const beast_conv2d_problem* problem,
                                       const void* x, const void* w, const void* bias, void* y);
beast_status beast_gemm_host(beast_context* ctx, const beast_gemm_problem* problem, const void* a,
                             const void* b, void* c);

/* Writes into buf (NUL-terminated; len must be at least 1, else
 * BEAST_ERROR_INVALID_ARGUMENT) which kernel, config and tuning device a call
 * with this problem on this context would use. */
beast_status beast_explain_conv2d(beast_context* ctx, const beast_conv2d_problem* problem,
                                  char* buf, size_t len);
beast_status beast_explain_gemm(beast_context* ctx, const beast_gemm_problem* problem, char* buf,
                                size_t len);

/* Where a context's programs came from. Programs are built once per context;
 * their binaries are cached on disk (folder: $BEAST_TUNED_CACHE_DIR, set but
 * empty for no cache; else $XDG_CACHE_HOME/beast_tuned; else
 * ~/.cache/beast_tuned), keyed by a hash of source, build options, device
 * name, driver and platform version, so later processes load them instead of
 * compiling. A damaged entry is rebuilt and replaced; a folder that cannot be
 * used only means compiling. For diagnostics. */
typedef struct beast_cache_info {
  int programs_built;    /* compiled from source by this context (then cached) */
  int programs_loaded;   /* loaded from the disk cache instead */
  int entries_rejected;  /* cache entries found damaged or unloadable: rebuilt */
  const char* directory; /* the cache folder in use, "" when off (none named, it
                          * could not be made, or others may write to it);
                          * valid while ctx lives */
} beast_cache_info;

beast_status beast_cache_stats(beast_context* ctx, beast_cache_info* info);

/* The workspace an OpenCL context keeps. A plain call whose kernel needs a
 * workspace (Winograd's transforms, implicit GEMM's widened weights) on an
 * in-order queue uses one the context keeps, grown to the largest any call
 * has needed, rather than allocating one per call, as the tuning measured
 * it; calls on several queues share it in turn (a call on another queue
 * than the last user's first makes its queue wait for the last kernel that
 * used it; the context holds a reference to that kernel's event and to the
 * last queue until the workspace is released), and a call on an
 * out-of-order queue allocates its own. The bytes kept now (0: none; a CUDA
 * context keeps none: each call's comes from the GPU's stream-ordered pool,
 * or cuMemAlloc where there is none). */
long long beast_context_workspace_bytes(beast_context* ctx);
/* Lets the kept workspace go (freed once the work that uses it has
 * finished); the next call that needs one allocates it again. */
void beast_context_release_workspace(beast_context* ctx);

/* The message of the last failed call on this thread ("" when none). */
const char* beast_last_error(void);

/* The number of tuned (problem, device) entries in this library. */
int beast_tuned_entry_count(void);

/* What this library was exported from, as lines of text: the beast version,
 * the database, the toolchain that rendered and compiled the kernels
 * (Jinja2, NVRTC), and one tab-separated line per entry with its tuning
 * device and driver, problem, template, template hash, config and time —
 * the text `beast export --check` compares with a database. */
const char* beast_export_info(void);

#ifdef __cplusplus
}
#endif

#endif /* BEAST_TUNED_H_ */
