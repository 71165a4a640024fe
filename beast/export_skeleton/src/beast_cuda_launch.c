/* beast_cuda_launch.c: the calls on a CUDA context. Device pointers are
 * checked to belong to the context's device, the entry for the shape is
 * picked as on OpenCL (beast_select), and its kernel launched with the tuned
 * geometry — grid = global / local blocks of local threads, the dynamic
 * shared memory and carveout it was tuned with — or, for a shape nobody
 * tuned or whose tuned kernels do not load or launch on this GPU, the
 * generic kernel over every output. The host-memory calls copy
 * through buffers of the call's own. */
#include <stdio.h>
#include <stdlib.h>

#include "beast_cuda_driver.h"
#include "beast_runtime.h"

/* Each pointer must be device memory of ctx's GPU: owned by its primary
 * context (what the application's runtime API allocates there), or, for
 * memory no context owns (stream-ordered pools, virtual memory mappings),
 * on that device. */
static beast_status CheckPointers(beast_context* ctx, const char* fn, void* const* buffers, int n,
                                  const char* const* names) {
  const beast_cuda_driver* d = beast_cuda_load_driver(NULL);
  for (int i = 0; i < n; ++i) {
    if (!buffers[i]) continue;
    const beast_cu_ptr ptr = (beast_cu_ptr)(size_t)buffers[i];
    beast_cu_context owner = NULL;
    beast_cu_result r = d->PointerGetAttribute(&owner, BEAST_CU_POINTER_CONTEXT, ptr);
    if (r == 0 && owner == ctx->cuda->context) continue;
    int ordinal = -1;
    beast_cu_result o = (r != 0 || owner == NULL)
                            ? d->PointerGetAttribute(&ordinal, BEAST_CU_POINTER_DEVICE_ORDINAL, ptr)
                            : -1;
    if (o == 0 && ordinal == ctx->cuda->device) continue;
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: %s is not device memory of %s (%s)", fn,
                      names[i], ctx->device_name,
                      r != 0 && o != 0 ? beast_cuda_error_name(r) : "another context or device");
  }
  return BEAST_OK;
}

/* Launches `f` with `params` on `s`; the caller waits when it must. */
static beast_status Launch(beast_context* ctx, beast_cu_function f, const char* what,
                           const size_t global[3], const size_t local[3], long dynamic,
                           int carveout, void** params, beast_cu_stream s) {
  const beast_cuda_driver* d = beast_cuda_load_driver(NULL);
  unsigned grid[3], block[3];
  for (int i = 0; i < 3; ++i) {
    block[i] = (unsigned)(local[i] ? local[i] : 1);
    const size_t blocks = (global[i] + block[i] - 1) / block[i];
    /* CUDA's grid limits (every GPU since compute capability 3.0). */
    if (blocks > (i == 0 ? 2147483647u : 65535u)) {
      return beast_fail(BEAST_ERROR_LAUNCH, "kernel %s needs %zu blocks along dimension %d", what,
                        blocks, i);
    }
    grid[i] = (unsigned)blocks;
  }
  unsigned shared = dynamic > 0 ? (unsigned)dynamic : 0;
  /* Entries that differ only in launch settings share one function: its
   * attributes are set for every launch, together with it, under the lock. */
  pthread_mutex_lock(&ctx->mutex);
  /* The default limit is 48 KiB less the kernel's static shared memory. */
  int limit = 0;
  beast_cu_result r = d->FuncGetAttribute(&limit, BEAST_CU_FUNC_MAX_DYNAMIC_SHARED, f);
  if (r == 0 && (int)shared > limit)
    r = d->FuncSetAttribute(f, BEAST_CU_FUNC_MAX_DYNAMIC_SHARED, (int)shared);
  if (r == 0) r = d->FuncSetAttribute(f, BEAST_CU_FUNC_CARVEOUT, carveout >= 0 ? carveout : -1);
  if (r == 0) {
    r = d->LaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, s,
                        params, NULL);
  }
  pthread_mutex_unlock(&ctx->mutex);
  if (r != 0) {
    /* The kernel's own doing (passed over for the next choice): a bad launch
     * configuration or attribute, too many resources, no image for this GPU.
     * Anything else (out of memory, a sticky fault of the application's own
     * kernels) is the context's state and retires no tuned kernel. */
    const int kernels =
        r == 1 || r == 98 || r == 200 || r == 209 || r == 218 || r == 222 || r == 500 || r == 701;
    return beast_fail(kernels ? BEAST_ERROR_LAUNCH : BEAST_ERROR_DEVICE, "%s refused kernel %s: %s",
                      ctx->device_name, what, beast_cuda_error_name(r));
  }
  return BEAST_OK;
}

/* A caller's stream must be one of ctx's context (when the driver can say).
 * CU_STREAM_LEGACY (0x1) and CU_STREAM_PER_THREAD (0x2) name the default
 * streams of the context current at the launch, which is ctx's (Enter). */
static beast_status CheckStream(beast_context* ctx, const char* fn, void* stream) {
  const beast_cuda_driver* d = beast_cuda_load_driver(NULL);
  if (!stream || stream == (void*)0x1 || stream == (void*)0x2 || !d->StreamGetCtx) return BEAST_OK;
  beast_cu_context owner = NULL;
  beast_cu_result r = d->StreamGetCtx((beast_cu_stream)stream, &owner);
  if (r != 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: stream is not a valid CUstream (%s)", fn,
                      beast_cuda_error_name(r));
  }
  if (owner != ctx->cuda->context) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "%s: stream belongs to another CUDA context than %s's primary one", fn,
                      ctx->device_name);
  }
  return BEAST_OK;
}

/* With no stream of the caller's, waits for ctx's own. A kernel that faults
 * on the GPU is reported here; it is not passed over for another, since such
 * a fault ends the context for every kernel. */
static beast_status Wait(beast_context* ctx, beast_status status, void* stream) {
  if (status != BEAST_OK || stream) return status;
  beast_cu_result r = beast_cuda_load_driver(NULL)->StreamSynchronize(ctx->cuda->stream);
  if (r != 0) {
    return beast_fail(BEAST_ERROR_LAUNCH, "a kernel failed on %s: %s", ctx->device_name,
                      beast_cuda_error_name(r));
  }
  return BEAST_OK;
}

/* Launches kernel `name` of entry e's module. */
static beast_status LaunchOf(beast_context* ctx, const beast_entry* e, const char* name,
                             const size_t global[3], const size_t local[3], long dynamic,
                             int carveout, void** params, beast_cu_stream s) {
  beast_cu_function f = NULL;
  beast_status status = beast_cuda_function(ctx, e, name, &f);
  if (status != BEAST_OK) return status;
  char what[512];
  snprintf(what, sizeof what, "%s (%s, %s)", name, e->template_name, e->config_key);
  return Launch(ctx, f, what, global, local, dynamic, carveout, params, s);
}

/* `phase` of entry e on stream s with the n pointers of ptrs (params point
 * at them): the kernels before its own first, with the workspace after the
 * contract's pointers in every kernel — `given` (a prepared handle's), else
 * one allocated for the call: in stream order from the device's memory pool
 * where the driver has it (freed in stream order too, so the call stays as
 * asynchronous as one without a workspace), else with cuMemAlloc, and then
 * the stream is waited for before it is freed. */
static beast_status RunEntry(beast_context* ctx, const beast_entry* e, beast_cu_ptr* ptrs,
                             void** params, int n, beast_cu_stream s, beast_cu_ptr given,
                             beast_phase phase) {
  const beast_cuda_driver* d = beast_cuda_load_driver(NULL);
  beast_cu_ptr workspace = 0;
  int in_stream_order = 0;
  if (given) {
    ptrs[n] = given;
    params[n] = &ptrs[n];
  } else if (e->workspace_bytes > 0) {
    beast_cu_result r = 1;
    /* A device without memory pools refuses it: then the plain allocation. */
    if (d->MemAllocAsync && d->MemFreeAsync)
      in_stream_order = d->MemAllocAsync(&workspace, (size_t)e->workspace_bytes, s) == 0;
    if (!in_stream_order) r = d->MemAlloc(&workspace, (size_t)e->workspace_bytes);
    if (!in_stream_order && r != 0) {
      return beast_fail(BEAST_ERROR_DEVICE, "%s: no workspace of %lld bytes for %s: %s",
                        ctx->device_name, e->workspace_bytes, e->kernel_name,
                        beast_cuda_error_name(r));
    }
    ptrs[n] = workspace;
    params[n] = &ptrs[n];
  }
  beast_status status = BEAST_OK;
  for (int i = 0; i < e->n_before && status == BEAST_OK; ++i) {
    const beast_stage* st = &e->before[i];
    if ((phase == BEAST_PHASE_PREPARE && !st->prepare) ||
        (phase == BEAST_PHASE_PREPARED && st->prepare))
      continue;
    status = LaunchOf(ctx, e, st->kernel, st->global, st->local, -1, -1, params, s);
  }
  if (status == BEAST_OK && phase != BEAST_PHASE_PREPARE) {
    status = LaunchOf(ctx, e, e->kernel_name, e->global, e->local, e->dynamic_local_bytes,
                      e->shared_carveout, params, s);
  }
  if (workspace && in_stream_order) {
    d->MemFreeAsync(workspace, s);
  } else if (workspace) {
    beast_cu_result r = d->StreamSynchronize(s);
    d->MemFree(workspace);
    /* A fault on the stream may be an earlier kernel's (the caller's own),
     * and it ends the context for every kernel: DEVICE, which passes
     * nothing over (here, before beast_entry_fell_over, LAUNCH would retire
     * this entry), as Conv2dPhase reports it. */
    if (status == BEAST_OK && r != 0) {
      status = beast_fail(BEAST_ERROR_DEVICE, "a kernel failed on %s: %s", ctx->device_name,
                          beast_cuda_error_name(r));
    }
  }
  return status;
}

/* Runs the tuned entry for the shape with its contract's n buffers; a tuned
 * kernel that does not load or launch here is passed over for the next
 * one. With none left, the generic kernel `generic` runs over `outputs`
 * work-items with the pointers `all` (n_all of them) and then `ints`. */
static beast_status Run(beast_context* ctx, beast_op op, const long long shape[BEAST_SHAPE_FIELDS],
                        const char* key, void* const* buffers, int n, void* const* all, int n_all,
                        const char* generic, const int* ints, int n_ints, size_t outputs,
                        void* stream) {
  beast_cu_stream s = stream ? (beast_cu_stream)stream : ctx->cuda->stream;
  beast_cu_ptr ptrs[5]; /* the contract's, and an entry's workspace */
  void* params[32];
  /* The tuned kernels were validated on buffers that start on 256-byte
   * boundaries (cuMemAlloc's), and some read 16 bytes at a time (cp.async,
   * vector loads): a buffer that starts elsewhere (a view at an offset) is
   * served by the generic kernel, which reads element by element. */
  int aligned = 1;
  for (int i = 0; i < n; ++i) aligned = aligned && (size_t)buffers[i] % 16 == 0;
  for (const beast_entry* e; aligned && (e = beast_select(ctx, op, shape, key, 0)) != NULL;) {
    for (int i = 0; i < n; ++i) {
      ptrs[i] = (beast_cu_ptr)(size_t)buffers[i];
      params[i] = &ptrs[i];
    }
    beast_status status = RunEntry(ctx, e, ptrs, params, n, s, 0, BEAST_PHASE_ALL);
    if (!beast_entry_fell_over(ctx, e, status)) return Wait(ctx, status, stream);
  }
  beast_clear_error(); /* beast_select's NOT_TUNED: the generic kernel serves the call */
  beast_cu_function f = NULL;
  beast_status status = beast_cuda_function(ctx, NULL, generic, &f);
  if (status != BEAST_OK) return status;
  int p = 0;
  for (int i = 0; i < n_all; ++i) {
    ptrs[i] = (beast_cu_ptr)(size_t)all[i];
    params[p++] = &ptrs[i];
  }
  for (int i = 0; i < n_ints; ++i) params[p++] = (void*)&ints[i];
  const size_t global[3] = {(outputs + 255) / 256 * 256, 1, 1}, local[3] = {256, 1, 1};
  return Wait(ctx, Launch(ctx, f, generic, global, local, -1, -1, params, s), stream);
}

static beast_status Conv2d(beast_context* ctx, const beast_conv2d_problem* p,
                           const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                           void* const buffers[4], const size_t bytes[4], void* stream) {
  static const char* const kNames[4] = {"x", "w", "bias", "y"};
  beast_status status = CheckPointers(ctx, "beast_conv2d_forward", buffers, 4, kNames);
  if (status == BEAST_OK) status = CheckStream(ctx, "beast_conv2d_forward", stream);
  if (status != BEAST_OK) return status;
  /* The tuned contract: (x, w, y), or (x, w, b, y) with a bias; the generic
   * kernel always takes b (NULL without a bias, unread). */
  void* const without[3] = {buffers[0], buffers[1], buffers[3]};
  int ints[BEAST_GENERIC_CONV2D_INTS];
  const int n_ints = beast_conv2d_generic_ints(p, ints);
  return Run(ctx, BEAST_OP_CONV2D, shape, key, p->bias ? buffers : without, p->bias ? 4 : 3,
             buffers, 4, beast_generic_kernel(BEAST_OP_CONV2D, p->dtype), ints, n_ints,
             bytes[3] / beast_dtype_bytes(p->dtype), stream);
}

static beast_status Gemm(beast_context* ctx, const beast_gemm_problem* p,
                         const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                         void* const buffers[3], const size_t bytes[3], void* stream) {
  static const char* const kNames[3] = {"a", "b", "c"};
  beast_status status = CheckPointers(ctx, "beast_gemm", buffers, 3, kNames);
  if (status == BEAST_OK) status = CheckStream(ctx, "beast_gemm", stream);
  if (status != BEAST_OK) return status;
  const int ints[] = {p->m, p->n, p->k, p->trans_a, p->trans_b, p->col_major};
  return Run(ctx, BEAST_OP_GEMM, shape, key, buffers, 3, buffers, 3,
             beast_generic_kernel(BEAST_OP_GEMM, p->dtype), ints, 6,
             bytes[2] / beast_dtype_bytes(p->dtype), stream);
}

static beast_status HostCall(beast_context* ctx, const char* fn, const void* problem,
                             const void* const* data, const size_t* bytes, int n, void* out,
                             beast_cuda_device_call run) {
  const beast_cuda_driver* d = beast_cuda_load_driver(NULL);
  beast_cu_ptr mem[4] = {0, 0, 0, 0};
  beast_status status = BEAST_OK;
  for (int i = 0; i < n && status == BEAST_OK; ++i) {
    if (i < n - 1 && !data[i]) continue;
    beast_cu_result r = d->MemAlloc(&mem[i], bytes[i]);
    if (r == 0 && i < n - 1) r = d->MemcpyHtoD(mem[i], data[i], bytes[i]);
    if (r != 0) {
      status = beast_fail(BEAST_ERROR_DEVICE, "%s: %s cannot take %zu bytes: %s", fn,
                          ctx->device_name, bytes[i], beast_cuda_error_name(r));
    }
  }
  if (status == BEAST_OK) status = run(ctx, problem, mem);
  if (status == BEAST_OK) {
    beast_cu_result r = d->MemcpyDtoH(out, mem[n - 1], bytes[n - 1]);
    if (r != 0) {
      status = beast_fail(BEAST_ERROR_LAUNCH, "%s: the kernel failed on %s: %s", fn,
                          ctx->device_name, beast_cuda_error_name(r));
    }
  }
  for (int i = 0; i < n; ++i) {
    if (mem[i]) d->MemFree(mem[i]);
  }
  return status;
}

/* The public calls make ctx's context current on the calling thread for the
 * call and give the thread its own back after. */
static beast_cu_context Enter(beast_context* ctx) {
  const beast_cuda_driver* d = beast_cuda_load_driver(NULL);
  beast_cu_context saved = NULL;
  d->CtxGetCurrent(&saved);
  d->CtxSetCurrent(ctx->cuda->context);
  return saved;
}

static beast_status Leave(beast_cu_context saved, beast_status status) {
  beast_cuda_load_driver(NULL)->CtxSetCurrent(saved);
  return status;
}

beast_status beast_cuda_conv2d(beast_context* ctx, const beast_conv2d_problem* p,
                               const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                               void* const buffers[4], const size_t bytes[4], void* stream) {
  beast_cu_context saved = Enter(ctx);
  return Leave(saved, Conv2d(ctx, p, shape, key, buffers, bytes, stream));
}

beast_status beast_cuda_gemm(beast_context* ctx, const beast_gemm_problem* p,
                             const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                             void* const buffers[3], const size_t bytes[3], void* stream) {
  beast_cu_context saved = Enter(ctx);
  return Leave(saved, Gemm(ctx, p, shape, key, buffers, bytes, stream));
}

beast_status beast_cuda_host_call(beast_context* ctx, const char* fn, const void* problem,
                                  const void* const* data, const size_t* bytes, int n, void* out,
                                  beast_cuda_device_call run) {
  beast_cu_context saved = Enter(ctx);
  return Leave(saved, HostCall(ctx, fn, problem, data, bytes, n, out, run));
}

/* beast_conv2d_entry_phase on a CUDA context: the given pointers checked as
 * beast_conv2d_forward checks them, then the phase on the given workspace. */
static beast_status Conv2dPhase(beast_context* ctx, const beast_entry* e,
                                const beast_conv2d_problem* p, void* const buffers[4],
                                void* workspace, beast_phase phase, void* stream, const char* fn) {
  static const char* const kNames[4] = {"x", "w", "bias", "y"};
  beast_status status = CheckPointers(ctx, fn, buffers, 4, kNames);
  if (status == BEAST_OK) status = CheckStream(ctx, fn, stream);
  if (status != BEAST_OK) return status;
  /* As in Run: a tuned kernel was validated on 16-byte aligned buffers. */
  for (int i = 0; i < 4; ++i) {
    if ((size_t)buffers[i] % 16 != 0) {
      return beast_fail(BEAST_ERROR_NOT_TUNED, "%s: %s is not on a 16-byte boundary", fn,
                        kNames[i]);
    }
  }
  beast_cu_ptr ptrs[5];
  void* params[32];
  void* const without[3] = {buffers[0], buffers[1], buffers[3]};
  void* const* contract = p->bias ? buffers : without;
  const int n = p->bias ? 4 : 3;
  for (int i = 0; i < n; ++i) {
    ptrs[i] = (beast_cu_ptr)(size_t)contract[i];
    params[i] = &ptrs[i];
  }
  beast_cu_stream s = stream ? (beast_cu_stream)stream : ctx->cuda->stream;
  status = RunEntry(ctx, e, ptrs, params, n, s, (beast_cu_ptr)(size_t)workspace, phase);
  /* A launch refused is the kernel's (the caller passes it over); waited
   * for are the prepare stages on the stream they ran on, and a call on
   * ctx's own stream. A fault seen there ends the context for every kernel:
   * DEVICE, which passes nothing over (Run's Wait, past the choice, says
   * LAUNCH and passes nothing over either). */
  if (status != BEAST_OK || (stream && phase != BEAST_PHASE_PREPARE)) return status;
  beast_cu_result r = beast_cuda_load_driver(NULL)->StreamSynchronize(s);
  if (r != 0) {
    return beast_fail(BEAST_ERROR_DEVICE, "%s: a kernel failed on %s: %s", fn, ctx->device_name,
                      beast_cuda_error_name(r));
  }
  return BEAST_OK;
}

beast_status beast_cuda_conv2d_phase(beast_context* ctx, const beast_entry* e,
                                     const beast_conv2d_problem* p, void* const buffers[4],
                                     void* workspace, int phase, void* stream, const char* fn) {
  beast_cu_context saved = Enter(ctx);
  return Leave(saved, Conv2dPhase(ctx, e, p, buffers, workspace, (beast_phase)phase, stream, fn));
}

beast_status beast_cuda_workspace_alloc(beast_context* ctx, long long bytes, void** workspace) {
  beast_cu_context saved = Enter(ctx);
  beast_cu_ptr mem = 0;
  beast_cu_result r = beast_cuda_load_driver(NULL)->MemAlloc(&mem, (size_t)bytes);
  *workspace = r == 0 ? (void*)(size_t)mem : NULL;
  return Leave(saved, r == 0 ? BEAST_OK
                             : beast_fail(BEAST_ERROR_DEVICE, "%s: no workspace of %lld bytes: %s",
                                          ctx->device_name, bytes, beast_cuda_error_name(r)));
}

void beast_cuda_workspace_free(beast_context* ctx, void* workspace) {
  beast_cu_context saved = Enter(ctx);
  /* Calls on the caller's streams may still read it. */
  beast_cuda_load_driver(NULL)->CtxSynchronize();
  beast_cuda_load_driver(NULL)->MemFree((beast_cu_ptr)(size_t)workspace);
  Leave(saved, BEAST_OK);
}
