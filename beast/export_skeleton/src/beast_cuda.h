/* beast_cuda.h: the CUDA side of the runtime, private. The driver API is
 * opened at run time (libcuda.so.1), with the few types and values it takes
 * declared here, so the library builds without the CUDA toolkit and runs
 * where there is no driver (a CUDA context then fails with one line). Not
 * installed. */
#ifndef BEAST_CUDA_H_
#define BEAST_CUDA_H_

#include <stddef.h>

#include "beast_table.h"
#include "beast_tuned.h"

typedef int beast_cu_result;
typedef unsigned long long beast_cu_ptr;
typedef struct CUctx_st* beast_cu_context;
typedef struct CUmod_st* beast_cu_module;
typedef struct CUfunc_st* beast_cu_function;
typedef struct CUstream_st* beast_cu_stream;

/* A CUDA context's own state (beast_context.cuda). */
typedef struct beast_cuda {
  int device;               /* CUdevice */
  beast_cu_context context; /* the device's primary context, shared with the application */
  beast_cu_stream stream;   /* beast's own stream */
  int cc;                   /* compute capability, major * 10 + minor */
  char arch[16];            /* "sm_90" */
  int shared_optin;         /* the most shared memory a block may opt in to */
  beast_cu_module* modules; /* of beast_cuda_modules, loaded on first use under the mutex */
  /* The error a module failed to load with, per module and for the generic
   * one (0: none; -1: no image for this GPU), so it is not loaded again and
   * every later caller reads the same reason. */
  beast_cu_result* module_error;
  beast_cu_module generic;
  beast_cu_result generic_error;
} beast_cuda;

struct beast_context;

/* Opens CUDA device `index` (as the driver numbers them) into a new context. */
beast_status beast_cuda_context_create(int index, struct beast_context** ctx);
void beast_cuda_context_destroy(struct beast_context* ctx);

/* Whether entry e (a CUDA one) can run on ctx's GPU: its cubin is for this
 * architecture, or its PTX's compute capability is at most the GPU's, and
 * its block fits. */
int beast_cuda_fits(const struct beast_context* ctx, const beast_entry* e);

/* The calls on device pointers (CUdeviceptr as void*) after the common
 * checks of beast_launch.c: the tuned entry for the shape, else the generic
 * kernel, on `stream` (a CUstream; NULL: ctx's own, waited for). */
beast_status beast_cuda_conv2d(struct beast_context* ctx, const beast_conv2d_problem* problem,
                               const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                               void* const buffers[4], const size_t bytes[4], void* stream);
beast_status beast_cuda_gemm(struct beast_context* ctx, const beast_gemm_problem* problem,
                             const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                             void* const buffers[3], const size_t bytes[3], void* stream);

/* beast_conv2d_entry_phase (beast_runtime.h) on a CUDA context; the
 * phases are beast_phase values. */
beast_status beast_cuda_conv2d_phase(struct beast_context* ctx, const beast_entry* e,
                                     const beast_conv2d_problem* problem, void* const buffers[4],
                                     void* workspace, int phase, void* stream, const char* fn);
/* A prepared handle's workspace on the GPU, and its release (after the
 * context's work is done: calls on the caller's streams may read it). */
beast_status beast_cuda_workspace_alloc(struct beast_context* ctx, long long bytes,
                                        void** workspace);
void beast_cuda_workspace_free(struct beast_context* ctx, void* workspace);

/* The host-memory calls: device buffers for the n arrays (the last one the
 * output; a NULL input gets none), `run` on them, the output copied back. */
typedef beast_status (*beast_cuda_device_call)(struct beast_context* ctx, const void* problem,
                                               beast_cu_ptr* buffers);
beast_status beast_cuda_host_call(struct beast_context* ctx, const char* fn, const void* problem,
                                  const void* const* data, const size_t* bytes, int n, void* out,
                                  beast_cuda_device_call run);

#endif /* BEAST_CUDA_H_ */
