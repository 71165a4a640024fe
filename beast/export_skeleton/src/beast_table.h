/* beast_table.h: the tuned-kernel table the runtime dispatches from. `beast
 * export` generates its definition (beast_kernels.c): one entry per tuned
 * (problem, device), and one per requested shape given a nearby tuned config,
 * each naming a rendered program and its launch geometry. */
#ifndef BEAST_TABLE_H_
#define BEAST_TABLE_H_

#include <stddef.h>

typedef enum beast_op { BEAST_OP_CONV2D = 0, BEAST_OP_GEMM = 1 } beast_op;

/* Shape fields, in this order, that must equal a call's for an entry to match.
 * conv2d: n c h w k r s stride_h stride_w pad_h pad_w dilation_h dilation_w
 *         groups layout (0 NCHW, 1 NHWC) bias (0, 1)
 * gemm:   m n k trans_a trans_b col_major (then zeros)
 * both:   the dtype (beast_dtype) last, field BEAST_SHAPE_DTYPE */
#define BEAST_SHAPE_FIELDS 17
#define BEAST_SHAPE_DTYPE 16

/* A kernel launched before an entry's own (a multi-stage config), from the
 * same program, with the same buffers and the entry's workspace after them.
 * A prepare stage (first in the list) reads only the weights (and bias) and
 * writes part of the workspace: beast_conv2d_prepare runs it once per
 * weight buffer, a plain call runs it every time. */
typedef struct beast_stage {
  const char* kernel;
  size_t global[3];
  size_t local[3];
  int prepare; /* 1: a prepare stage */
} beast_stage;

typedef struct beast_entry {
  beast_op op;
  long long shape[BEAST_SHAPE_FIELDS];
  const char* problem_key;   /* beast's canonical problem key */
  const char* template_name; /* "gemm/tiled" */
  const char* template_hash;
  const char* config_key; /* "MWG=32,NWG=64,..." */
  const char* kernel_name;
  /* BEAST_BACKEND_OPENCL: index into beast_program_sources; CUDA: into
   * beast_cuda_modules. */
  int program;
  size_t global[3];
  size_t local[3];
  /* Bytes of the __local buffer passed as the kernel's last argument (local
   * memory sized at launch); -1: the kernel takes none. */
  long dynamic_local_bytes;
  /* CUDA: the shared-memory carveout in percent it was tuned with; -1 the
   * driver's choice. */
  int shared_carveout;
  const char* device_name; /* the device it was tuned on */
  const char* device_vendor;
  const char* device_driver;
  const char* device_arch;
  double median_ms; /* its tuned time there (nearest: for source_problem) */
  /* 0: the winner tuned for exactly this shape. 1: nearest — a requested
   * shape nobody tuned on this device, running the winner config of the
   * tuned problem source_problem, distance away (log2 sizes), rendered for
   * this shape. */
  int nearest;
  const char* source_problem; /* "" unless nearest */
  double distance;
  int backend; /* the tuning device's: BEAST_BACKEND_OPENCL or BEAST_BACKEND_CUDA */
  /* Kernels launched first, in order (n_before, NULL when none), and the
   * bytes of device memory they and the entry's kernel share (0: none; each
   * call allocates it, after the contract's buffers in every kernel). */
  const beast_stage* before;
  int n_before;
  long long workspace_bytes;
  /* Which calls it serves: BEAST_CALLS_ALL; or, where the fastest config has
   * prepare stages and another is faster with them run in every call,
   * BEAST_CALLS_PREPARED (beast_conv2d_forward_prepared) for the first and
   * BEAST_CALLS_PLAIN for the second. */
  int calls;
} beast_entry;

#define BEAST_CALLS_ALL 0
#define BEAST_CALLS_PREPARED 1
#define BEAST_CALLS_PLAIN 2

/* A CUDA entry's kernel: NVRTC's cubin for the tuning GPU's architecture,
 * and the same source as PTX, which the driver JIT-compiles for a GPU of
 * that compute capability or newer. */
typedef struct beast_cuda_module {
  const char* arch; /* "sm_90": the cubin runs on exactly this architecture */
  const unsigned char* cubin;
  size_t cubin_size;
  const char* ptx;
  int ptx_cc; /* 90: the PTX's virtual architecture (compute_90) */
} beast_cuda_module;

extern const char* const beast_program_sources[];
extern const int beast_program_count;
extern const beast_cuda_module beast_cuda_modules[];
extern const int beast_cuda_module_count;
extern const beast_entry beast_entries[];
extern const int beast_entry_count;

/* The generic fallback kernels (beast_generic.cl): OpenCL source, and PTX of
 * them for CUDA GPUs of compute capability beast_generic_ptx_cc or newer
 * ("" when the library was exported without NVRTC). */
/* What the library was exported from: the .beast-export stamp's text. */
extern const char beast_export_stamp[];

extern const char beast_generic_source[];
extern const char beast_generic_ptx[];
extern const int beast_generic_ptx_cc;

#endif /* BEAST_TABLE_H_ */
