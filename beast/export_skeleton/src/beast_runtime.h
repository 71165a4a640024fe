/* beast_runtime.h: private declarations shared by the runtime's files — the
 * context, the error helpers, problem checks and dispatch. Not installed. */
#ifndef BEAST_RUNTIME_H_
#define BEAST_RUNTIME_H_

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif
#include <pthread.h>

#include "beast_cuda.h"
#include "beast_table.h"
#include "beast_tuned.h"

/* A device opened for work. An OpenCL one uses the cl_* members; a CUDA one
 * (backend BEAST_BACKEND_CUDA) keeps its state in `cuda` and shares the
 * names, limits, mutex and cache counts. */
struct beast_context {
  beast_backend backend;
  beast_cuda* cuda;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  char device_name[256];
  char device_driver[128];
  char platform_version[256];
  size_t max_work_group_size;
  size_t max_work_item_sizes[3];
  cl_ulong local_mem_bytes; /* CL_DEVICE_LOCAL_MEM_SIZE */
  int fp64;                 /* double precision (OpenCL: CL_DEVICE_DOUBLE_FP_CONFIG != 0) */
  /* Programs of beast_program_sources, built on first use under `mutex`;
   * build_failure[i] keeps a failed build's message (NULL: none), so it is
   * not retried and every later caller reads the same reason. */
  pthread_mutex_t mutex;
  cl_program* programs;
  char** build_failure;
  /* The generic fallback kernels (beast_generic.c), built on first use. */
  cl_program generic_program;
  int generic_failed;
  /* The on-disk program cache: its folder ("" when off) and this context's
   * counts (under `mutex`). */
  char cache_dir[1024];
  beast_cache_info cache;
  /* Per entry of beast_entries: why it failed on this device (NULL: it has
   * not), under `mutex` (beast_entry_failures.c). */
  char** entry_failure;
  /* The workspace plain calls on in-order queues share
   * (beast_workspace_cache.c), under workspace_mutex: the buffer, its size,
   * the event of the last kernel that used it and that kernel's queue (both
   * retained). */
  pthread_mutex_t workspace_mutex;
  int workspace_mutex_ready;
  cl_mem workspace;
  size_t workspace_bytes;
  cl_event workspace_last;
  cl_command_queue workspace_queue;
};

/* Records a one-line message for beast_last_error() and returns status. */
beast_status beast_fail(beast_status status, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void beast_clear_error(void);

/* Checks a problem (INVALID_ARGUMENT with the reason when it is impossible)
 * and fills its shape fields (beast_table.h) and canonical key. */
beast_status beast_conv2d_shape(const beast_conv2d_problem* problem,
                                long long shape[BEAST_SHAPE_FIELDS], char* key, size_t key_len);
beast_status beast_gemm_shape(const beast_gemm_problem* problem,
                              long long shape[BEAST_SHAPE_FIELDS], char* key, size_t key_len);

/* beast_conv2d_shape after the check every conv2d call makes of its bias
 * argument: given exactly when problem->bias is 1 (fn names the call). */
beast_status beast_conv2d_call_shape(const char* fn, const beast_conv2d_problem* problem,
                                     const void* bias, long long shape[BEAST_SHAPE_FIELDS],
                                     char* key, size_t key_len);

/* The bytes of each buffer of a problem that passed the checks above:
 * conv2d x, w, bias (0 without one), y; gemm a, b, c. */
void beast_conv2d_bytes(const beast_conv2d_problem* problem, size_t bytes[4]);
/* The int arguments of beast_generic_conv2d after its buffers (N C H W K R S
 * P Q strides pads dilations groups nhwc bias); returns how many. */
#define BEAST_GENERIC_CONV2D_INTS 18
int beast_conv2d_generic_ints(const beast_conv2d_problem* problem,
                              int ints[BEAST_GENERIC_CONV2D_INTS]);
void beast_gemm_bytes(const beast_gemm_problem* problem, size_t bytes[3]);
/* Bytes of one element of a dtype the checks above accepted. */
size_t beast_dtype_bytes(beast_dtype dtype);
/* The generic fallback kernel of op for dtype ("beast_generic_gemm" for f32,
 * "beast_generic_gemm_f16" for f16, ...). */
const char* beast_generic_kernel(beast_op op, beast_dtype dtype);

/* The entry to run for (op, shape) on ctx's device — for a call with
 * prepared weights when `prepared` is 1, else a plain one (beast_entry.calls)
 * — in tiers: the winner
 * tuned for this shape on this device (by name; the same driver preferred),
 * else a nearest entry for this device (a nearby shape's winner config,
 * chosen at export time), else the fastest exact, then nearest, entry tuned
 * elsewhere; always one whose work-group this device can launch and that has
 * not failed here. NULL, with the reason recorded as a NOT_TUNED error, when
 * there is none: the caller then runs the generic kernel. */
const beast_entry* beast_select(beast_context* ctx, beast_op op,
                                const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                                int prepared);

/* A refused or failed launch: the kernel's doing (LAUNCH: it is passed over
 * for the next choice), unless the device was out of memory (DEVICE: a state
 * that passes, which must not retire a tuned kernel for the context's life). */
beast_status beast_launch_failure(cl_int err);

/* A build (or a kernel taken from a built program) that failed: the
 * source's doing (BUILD: remembered, and the entry passed over for the
 * context's life), unless the host or device ran out of memory (DEVICE:
 * nothing is remembered, the next call builds again). */
beast_status beast_build_failure(cl_int err);

/* The workspace of a plain call (beast_workspace_cache.c).
 * beast_call_workspace gives a plain call of entry e on `queue` its
 * workspace: the context's kept one (*kept 1, held for this call until
 * beast_call_workspace_done) on an in-order queue, else one of its own.
 * beast_call_workspace_done ends the call's use of it once its kernels are
 * enqueued; `last` is the event of the last of them (NULL: none), of which
 * the context takes a reference of its own (the caller still releases
 * its). init and free open and close the cache. Not the prepared handle's
 * workspace (beast_workspace_alloc). */
void beast_workspace_cache_init(beast_context* ctx);
void beast_workspace_cache_free(beast_context* ctx);
beast_status beast_call_workspace(beast_context* ctx, cl_command_queue queue, int in_order,
                                  const beast_entry* e, cl_mem* workspace, int* kept);
void beast_call_workspace_done(beast_context* ctx, cl_mem workspace, int kept, cl_event last);

/* The failed tuned entries of a context (beast_entry_failures.c). init
 * allocates the table, free releases it and the reasons. */
beast_status beast_entry_failures_init(beast_context* ctx);
void beast_entry_failures_free(beast_context* ctx);
/* After running entry e gave `status`: when e's kernel failed to build, load
 * or launch here (BUILD or LAUNCH: what the kernel itself causes; a device
 * out of memory or a caller's broken stream is DEVICE and passes nothing
 * over), records beast_last_error() as its reason and returns 1 — the caller
 * selects again and runs what serves the shape now; otherwise (also for e
 * NULL) returns 0, clearing the error when status is BEAST_OK. */
int beast_entry_fell_over(beast_context* ctx, const beast_entry* e, beast_status status);
/* Whether e failed on ctx; the caller holds ctx->mutex. */
int beast_entry_failed(const beast_context* ctx, const beast_entry* e);
/* How many of the entries for (op, shape) failed on ctx; buf gets the
 * first one's kernel and reason ("" when none). */
int beast_entry_failure_note(beast_context* ctx, beast_op op,
                             const long long shape[BEAST_SHAPE_FIELDS], char* buf, size_t len);

/* Which kernels of a tuned entry a run launches (prepare stages: beast_stage). */
typedef enum beast_phase {
  BEAST_PHASE_ALL = 0,     /* every stage and the entry's kernel, on a workspace of the call's */
  BEAST_PHASE_PREPARE = 1, /* the prepare stages only, into the given workspace */
  BEAST_PHASE_PREPARED = 2 /* the other stages and the kernel, on the given workspace */
} beast_phase;

/* Whether entry e has prepare stages (what beast_conv2d_prepare can save). */
int beast_entry_prepares(const beast_entry* e);

/* Runs `phase` of the tuned conv2d entry e on ctx with the buffers x, w,
 * bias, y (x and y NULL for BEAST_PHASE_PREPARE: those kernels do not read
 * them) and `workspace` (a cl_mem, or a CUdeviceptr as void*, of
 * e->workspace_bytes), on `queue` as beast_conv2d_forward takes it. The
 * buffers given are checked as that call checks them. NOT_TUNED when the
 * entry cannot serve these buffers (a CUDA pointer off a 16-byte boundary):
 * the caller then makes a plain call. fn names the public call in messages. */
beast_status beast_conv2d_entry_phase(beast_context* ctx, const beast_entry* e,
                                      const beast_conv2d_problem* problem, void* x, void* w,
                                      void* bias, void* y, void* workspace, beast_phase phase,
                                      void* queue, const char* fn);

/* A workspace of `bytes` on ctx's device for a prepared handle, and its
 * release (DEVICE with the reason when the device has no room). */
beast_status beast_workspace_alloc(beast_context* ctx, long long bytes, void** workspace);
void beast_workspace_free(beast_context* ctx, void* workspace);

/* The built program of entry->program on ctx, building it on first use. */
beast_status beast_program(beast_context* ctx, const beast_entry* entry, cl_program* program);

/* Builds `source` with `options` for ctx's device, loading the binary from
 * the disk cache when it holds a good one and storing it there otherwise.
 * On failure returns the OpenCL error with the build log's first line in
 * `log`. The caller holds ctx->mutex (it counts into ctx->cache). */
cl_int beast_build_program(beast_context* ctx, const char* source, const char* options,
                           cl_program* program, char* log, size_t log_len);

/* The cache folder: $BEAST_TUNED_CACHE_DIR (set but empty: no cache), else
 * $XDG_CACHE_HOME/beast_tuned, else $HOME/.cache/beast_tuned; "" for none. */
void beast_cache_folder(char* dir, size_t len);

/* The built program of the generic fallback kernels beast_generic_conv2d and
 * beast_generic_gemm (shape as run-time int arguments, one output per
 * work-item), building it on first use. */
beast_status beast_generic_program(beast_context* ctx, cl_program* program);

#endif /* BEAST_RUNTIME_H_ */
