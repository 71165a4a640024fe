/* beast_launch.c: the device-memory entry points beast_conv2d_forward and
 * beast_gemm. Each call checks its buffers and queue against the context,
 * picks the entry for the shape (beast_select) and enqueues its kernel with
 * the tuned geometry, or, for a shape nobody tuned or whose tuned kernels
 * fail on this device, the generic kernel. A
 * kernel object is made per call (clSetKernelArg on a shared one would race),
 * so calls on one context may run from several threads. */
#include <stdio.h>
#include <stdlib.h>

#include "beast_runtime.h"

/* A kernel to enqueue: its geometry and the int arguments after the buffers. */
typedef struct Launch {
  cl_kernel kernel;
  const char* what; /* for messages: "conv2d_direct_nchw (conv2d/direct_nchw, KWI=4,...)" */
  cl_uint dims;
  size_t global[3];
  const size_t* local; /* NULL: the implementation chooses */
  const int* ints;
  int n_ints;
  long dynamic_local_bytes; /* -1: no __local argument after the others */
} Launch;

/* The queue to enqueue on: the caller's (checked against ctx) or ctx's own. */
static beast_status ResolveQueue(beast_context* ctx, void* queue, const char* fn,
                                 cl_command_queue* resolved) {
  if (!queue) {
    *resolved = ctx->queue;
    return BEAST_OK;
  }
  cl_command_queue q = (cl_command_queue)queue;
  cl_context context = NULL;
  cl_device_id device = NULL;
  if (clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS ||
      clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof device, &device, NULL) != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: queue is not a valid cl_command_queue",
                      fn);
  }
  if (context != ctx->context || device != ctx->device) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "%s: queue belongs to another %s than the beast context's (see "
                      "beast_context_create_opencl)",
                      fn, context != ctx->context ? "cl_context" : "device");
  }
  *resolved = q;
  return BEAST_OK;
}

/* A buffer argument: a cl_mem of ctx's context holding at least `bytes`. */
static beast_status CheckBuffer(beast_context* ctx, void* buffer, const char* name, size_t bytes,
                                const char* fn) {
  cl_mem mem = (cl_mem)buffer;
  cl_context context = NULL;
  size_t size = 0;
  if (clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof context, &context, NULL) != CL_SUCCESS ||
      clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: %s is not a valid cl_mem", fn, name);
  }
  if (context != ctx->context) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "%s: %s belongs to another cl_context than the beast context's", fn, name);
  }
  if (size < bytes) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: %s holds %zu bytes, the problem needs %zu",
                      fn, name, size, bytes);
  }
  return BEAST_OK;
}

beast_status beast_launch_failure(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY
             ? BEAST_ERROR_DEVICE
             : BEAST_ERROR_LAUNCH;
}

beast_status beast_build_failure(cl_int err) {
  /* Not CL_OUT_OF_RESOURCES: drivers also say that of a kernel that can
   * never fit (its registers, its local memory), which no retry helps. */
  return err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
             ? BEAST_ERROR_DEVICE
             : BEAST_ERROR_BUILD;
}

/* What a failed clCreateKernel says of the kernel. */
static const char* KernelFailure(cl_int err) {
  return err == CL_INVALID_KERNEL_NAME ? "is missing from" : "could not be created from";
}

/* Waits for a kernel's event and releases it: a kernel that failed on the
 * device (`what` names it) is reported here. */
static beast_status WaitFor(beast_context* ctx, cl_event event, const char* what) {
  cl_int err = clWaitForEvents(1, &event);
  cl_int exec = CL_COMPLETE;
  if (err == CL_SUCCESS) {
    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof exec, &exec, NULL);
  }
  clReleaseEvent(event);
  if (err != CL_SUCCESS || exec < 0) {
    return beast_fail(beast_launch_failure(err != CL_SUCCESS ? err : exec),
                      "kernel %s failed on %s (error %d)", what, ctx->device_name,
                      err != CL_SUCCESS ? (int)err : (int)exec);
  }
  return BEAST_OK;
}

/* Sets the buffers (a NULL one becomes a NULL pointer), then the ints, and
 * enqueues. With `wait` the call waits for the kernel (WaitFor). Else, when
 * `done` is given, *done becomes the kernel's event, for the caller to
 * release. */
static beast_status Enqueue(beast_context* ctx, cl_command_queue queue, const Launch* k,
                            const cl_mem* buffers, int n_buffers, int wait, cl_event* done) {
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < (cl_uint)(n_buffers + k->n_ints); ++i) {
    if ((int)i < n_buffers) {
      err = clSetKernelArg(k->kernel, i, sizeof(cl_mem), buffers[i] ? &buffers[i] : NULL);
    } else {
      err = clSetKernelArg(k->kernel, i, sizeof(cl_int), &k->ints[(int)i - n_buffers]);
    }
    if (err != CL_SUCCESS) {
      return beast_fail(BEAST_ERROR_LAUNCH, "kernel %s rejects argument %u (error %d)", k->what,
                        (unsigned)i, (int)err);
    }
  }
  if (k->dynamic_local_bytes >= 0) {
    size_t bytes = k->dynamic_local_bytes < 4 ? 4 : (size_t)k->dynamic_local_bytes;
    cl_uint index = (cl_uint)(n_buffers + k->n_ints);
    err = clSetKernelArg(k->kernel, index, bytes, NULL);
    if (err != CL_SUCCESS) {
      return beast_fail(BEAST_ERROR_LAUNCH,
                        "kernel %s rejects %zu bytes of __local memory (error %d)", k->what, bytes,
                        (int)err);
    }
  }
  cl_event event = NULL;
  err = clEnqueueNDRangeKernel(queue, k->kernel, k->dims, NULL, k->global, k->local, 0, NULL,
                               wait || done ? &event : NULL);
  if (err != CL_SUCCESS) {
    return beast_fail(beast_launch_failure(err),
                      "%s refused kernel %s with global %zux%zux%zu (error %d)", ctx->device_name,
                      k->what, k->global[0], k->global[1], k->global[2], (int)err);
  }
  if (wait) return WaitFor(ctx, event, k->what);
  if (done) *done = event;
  return BEAST_OK;
}

/* What a message calls kernel `name` of entry e. */
static void Describe(char* what, size_t len, const char* name, const beast_entry* e) {
  snprintf(what, len, "%s (%s, %s)", name, e->template_name, e->config_key);
}

/* Enqueues kernel `name` of an entry's program with the given geometry
 * (wait and done as Enqueue takes them). */
static beast_status RunKernel(beast_context* ctx, cl_command_queue queue, const beast_entry* e,
                              cl_program program, const char* name, const size_t global[3],
                              const size_t* local, long dynamic_local_bytes, const cl_mem* buffers,
                              int n_buffers, int wait, cl_event* done) {
  cl_int err = CL_SUCCESS;
  Launch k = {NULL,  NULL, 3, {global[0], global[1], global[2]},
              local, NULL, 0, dynamic_local_bytes};
  k.kernel = clCreateKernel(program, name, &err);
  if (err != CL_SUCCESS) {
    return beast_fail(beast_build_failure(err), "kernel %s of %s %s its program (error %d)", name,
                      e->template_name, KernelFailure(err), (int)err);
  }
  char what[512];
  Describe(what, sizeof what, name, e);
  k.what = what;
  beast_status status = Enqueue(ctx, queue, &k, buffers, n_buffers, wait, done);
  clReleaseKernel(k.kernel); /* an enqueued command keeps its own reference */
  return status;
}

int beast_entry_prepares(const beast_entry* e) { return e->n_before > 0 && e->before[0].prepare; }

/* Enqueues `phase` of a tuned entry with its tuned geometry: the kernels
 * before its own first, all with the call's buffers and, when the entry has
 * one, the workspace after them: `given` (a prepared handle's), else the
 * context's kept one (beast_call_workspace; on an out-of-order queue, or
 * where the kept one cannot be ordered after its last use, one of the
 * call's own). A call on the kept workspace enqueues its kernels without
 * waiting and keeps their events: the last one orders a later call on
 * another queue after this one; with `wait`, once the workspace is let go
 * (so that a blocking call does not hold it while its kernels run), each
 * kernel enqueued is waited for in order, a failed one reported by name. */
static beast_status RunEntry(beast_context* ctx, cl_command_queue queue, const beast_entry* e,
                             const cl_mem* buffers, int n_buffers, int wait, cl_mem given,
                             beast_phase phase) {
  cl_program program = NULL;
  beast_status status = beast_program(ctx, e, &program);
  if (status != BEAST_OK) return status;
  /* On an out-of-order queue each stage is waited for: the next reads it. */
  cl_command_queue_properties properties = 0;
  clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL);
  const int in_order = !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_mem with_workspace[5];
  cl_mem workspace = given;
  int kept = 0;
  if (!given && e->workspace_bytes > 0) {
    status = beast_call_workspace(ctx, queue, in_order, e, &workspace, &kept);
    if (status != BEAST_OK) return status;
  }
  /* On the kept workspace: each kernel's event, the stages' then the
   * entry's own (NULL: not enqueued). */
  cl_event* events = NULL;
  if (kept && !(events = (cl_event*)calloc((size_t)e->n_before + 1, sizeof(cl_event)))) {
    beast_call_workspace_done(ctx, workspace, kept, NULL);
    return beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
  }
  if (workspace) {
    for (int i = 0; i < n_buffers; ++i) with_workspace[i] = buffers[i];
    with_workspace[n_buffers] = workspace;
    buffers = with_workspace;
    ++n_buffers;
  }
  for (int i = 0; i < e->n_before && status == BEAST_OK; ++i) {
    const beast_stage* s = &e->before[i];
    if ((phase == BEAST_PHASE_PREPARE && !s->prepare) ||
        (phase == BEAST_PHASE_PREPARED && s->prepare))
      continue;
    status = RunKernel(ctx, queue, e, program, s->kernel, s->global, s->local, -1, buffers,
                       n_buffers, (wait && !kept) || !in_order || phase == BEAST_PHASE_PREPARE,
                       kept ? &events[i] : NULL);
  }
  if (status == BEAST_OK && phase != BEAST_PHASE_PREPARE) {
    status = RunKernel(ctx, queue, e, program, e->kernel_name, e->global, e->local,
                       e->dynamic_local_bytes, buffers, n_buffers, wait && !kept,
                       kept ? &events[e->n_before] : NULL);
  }
  if (!kept) {
    if (!given) beast_call_workspace_done(ctx, workspace, kept, NULL);
    return status;
  }
  cl_event last = NULL;
  for (int i = 0; i <= e->n_before; ++i)
    if (events[i]) last = events[i];
  beast_call_workspace_done(ctx, workspace, kept, last);
  /* A blocking call waits for what it enqueued even after a refusal, so
   * that nothing of it runs on after it returns; the first failure is the
   * one reported. */
  for (int i = 0; i <= e->n_before; ++i) {
    if (!events[i]) continue;
    if (wait && status == BEAST_OK) {
      char what[512];
      Describe(what, sizeof what, i < e->n_before ? e->before[i].kernel : e->kernel_name, e);
      status = WaitFor(ctx, events[i], what); /* releases it */
    } else {
      if (wait) clWaitForEvents(1, &events[i]);
      clReleaseEvent(events[i]);
    }
  }
  free(events);
  return status;
}

/* Fails (DEVICE, naming it) when ctx's device cannot compute dtype: f64 on an
 * OpenCL device without double precision. */
static beast_status CheckDtype(beast_context* ctx, beast_dtype dtype, const char* fn) {
  if (dtype == BEAST_DTYPE_F64 && ctx->backend == BEAST_BACKEND_OPENCL && !ctx->fp64) {
    return beast_fail(BEAST_ERROR_DEVICE,
                      "%s: dtype f64 needs double precision (cl_khr_fp64), which %s lacks", fn,
                      ctx->device_name);
  }
  return BEAST_OK;
}

/* Enqueues the generic fallback kernel `name` over `outputs` work-items. The
 * failure to find a tuned entry that the dispatcher recorded is cleared: the
 * call succeeds, and beast_explain tells why the generic kernel ran. */
static beast_status RunGeneric(beast_context* ctx, cl_command_queue queue, const char* name,
                               const int* ints, int n_ints, const cl_mem* buffers, int n_buffers,
                               size_t outputs, int wait) {
  beast_clear_error();
  cl_program program = NULL;
  beast_status status = beast_generic_program(ctx, &program);
  if (status != BEAST_OK) return status;
  cl_int err = CL_SUCCESS;
  Launch k = {NULL, name, 1, {outputs, 1, 1}, NULL, ints, n_ints, -1};
  k.kernel = clCreateKernel(program, name, &err);
  if (err != CL_SUCCESS) {
    return beast_fail(beast_build_failure(err), "generic kernel %s %s its program (error %d)", name,
                      KernelFailure(err), (int)err);
  }
  status = Enqueue(ctx, queue, &k, buffers, n_buffers, wait, NULL);
  clReleaseKernel(k.kernel);
  return status;
}

beast_status beast_conv2d_forward(beast_context* ctx, const beast_conv2d_problem* problem, void* x,
                                  void* w, void* bias, void* y, void* queue) {
  static const char kFn[] = "beast_conv2d_forward";
  beast_clear_error();
  if (!ctx || !problem || !x || !w || !y) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: a NULL argument", kFn);
  }
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_conv2d_call_shape(kFn, problem, bias, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  size_t bytes[4];
  beast_conv2d_bytes(problem, bytes); /* only of a valid problem: it divides by strides */
  void* const args[4] = {x, w, bias, y};
  status = CheckDtype(ctx, problem->dtype, kFn);
  if (status != BEAST_OK) return status;
  if (ctx->backend == BEAST_BACKEND_CUDA)
    return beast_cuda_conv2d(ctx, problem, shape, key, args, bytes, queue);
  cl_command_queue q = NULL;
  status = ResolveQueue(ctx, queue, kFn, &q);
  if (status != BEAST_OK) return status;
  static const char* const kNames[4] = {"x", "w", "bias", "y"};
  for (int i = 0; i < 4 && status == BEAST_OK; ++i) {
    if (args[i]) status = CheckBuffer(ctx, args[i], kNames[i], bytes[i], kFn);
  }
  if (status != BEAST_OK) return status;

  const beast_conv2d_problem* p = problem;
  /* The tuned contract: (x, w, y), or (x, w, b, y) with a bias. A tuned
   * kernel that fails here is passed over for the next, or the generic one. */
  const cl_mem with_bias[4] = {(cl_mem)x, (cl_mem)w, (cl_mem)bias, (cl_mem)y};
  const cl_mem without[3] = {(cl_mem)x, (cl_mem)w, (cl_mem)y};
  for (const beast_entry* e; (e = beast_select(ctx, BEAST_OP_CONV2D, shape, key, 0)) != NULL;) {
    status = RunEntry(ctx, q, e, p->bias ? with_bias : without, p->bias ? 4 : 3, queue == NULL,
                      NULL, BEAST_PHASE_ALL);
    if (!beast_entry_fell_over(ctx, e, status)) return status;
  }
  /* The generic kernel always takes b; without a bias it gets NULL, unread. */
  const cl_mem buffers[4] = {(cl_mem)x, (cl_mem)w, (cl_mem)bias, (cl_mem)y};
  int ints[BEAST_GENERIC_CONV2D_INTS];
  const int n_ints = beast_conv2d_generic_ints(p, ints);
  return RunGeneric(ctx, q, beast_generic_kernel(BEAST_OP_CONV2D, p->dtype), ints, n_ints, buffers,
                    4, bytes[3] / beast_dtype_bytes(p->dtype), queue == NULL);
}

beast_status beast_gemm(beast_context* ctx, const beast_gemm_problem* problem, void* a, void* b,
                        void* c, void* queue) {
  static const char kFn[] = "beast_gemm";
  beast_clear_error();
  if (!ctx || !problem || !a || !b || !c) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: a NULL argument", kFn);
  }
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_gemm_shape(problem, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  size_t bytes[3];
  beast_gemm_bytes(problem, bytes); /* only of a valid problem: it divides by strides */
  void* const args[3] = {a, b, c};
  status = CheckDtype(ctx, problem->dtype, kFn);
  if (status != BEAST_OK) return status;
  if (ctx->backend == BEAST_BACKEND_CUDA)
    return beast_cuda_gemm(ctx, problem, shape, key, args, bytes, queue);
  cl_command_queue q = NULL;
  status = ResolveQueue(ctx, queue, kFn, &q);
  if (status != BEAST_OK) return status;
  static const char* const kNames[3] = {"a", "b", "c"};
  for (int i = 0; i < 3 && status == BEAST_OK; ++i) {
    status = CheckBuffer(ctx, args[i], kNames[i], bytes[i], kFn);
  }
  if (status != BEAST_OK) return status;

  const beast_gemm_problem* p = problem;
  const cl_mem buffers[3] = {(cl_mem)a, (cl_mem)b, (cl_mem)c};
  for (const beast_entry* e; (e = beast_select(ctx, BEAST_OP_GEMM, shape, key, 0)) != NULL;) {
    status = RunEntry(ctx, q, e, buffers, 3, queue == NULL, NULL, BEAST_PHASE_ALL);
    if (!beast_entry_fell_over(ctx, e, status)) return status;
  }
  const int ints[] = {p->m, p->n, p->k, p->trans_a, p->trans_b, p->col_major};
  return RunGeneric(ctx, q, beast_generic_kernel(BEAST_OP_GEMM, p->dtype), ints, 6, buffers, 3,
                    bytes[2] / beast_dtype_bytes(p->dtype), queue == NULL);
}

beast_status beast_conv2d_entry_phase(beast_context* ctx, const beast_entry* e,
                                      const beast_conv2d_problem* p, void* x, void* w, void* bias,
                                      void* y, void* workspace, beast_phase phase, void* queue,
                                      const char* fn) {
  size_t bytes[4];
  beast_conv2d_bytes(p, bytes);
  void* const args[4] = {x, w, bias, y};
  beast_status status = CheckDtype(ctx, p->dtype, fn);
  if (status != BEAST_OK) return status;
  if (ctx->backend == BEAST_BACKEND_CUDA)
    return beast_cuda_conv2d_phase(ctx, e, p, args, workspace, phase, queue, fn);
  cl_command_queue q = NULL;
  status = ResolveQueue(ctx, queue, fn, &q);
  static const char* const kNames[4] = {"x", "w", "bias", "y"};
  for (int i = 0; i < 4 && status == BEAST_OK; ++i) {
    if (args[i]) status = CheckBuffer(ctx, args[i], kNames[i], bytes[i], fn);
  }
  if (status != BEAST_OK) return status;
  const cl_mem with_bias[4] = {(cl_mem)x, (cl_mem)w, (cl_mem)bias, (cl_mem)y};
  const cl_mem without[3] = {(cl_mem)x, (cl_mem)w, (cl_mem)y};
  return RunEntry(ctx, q, e, p->bias ? with_bias : without, p->bias ? 4 : 3, queue == NULL,
                  (cl_mem)workspace, phase);
}

beast_status beast_workspace_alloc(beast_context* ctx, long long bytes, void** workspace) {
  if (ctx->backend == BEAST_BACKEND_CUDA) return beast_cuda_workspace_alloc(ctx, bytes, workspace);
  cl_int err = CL_SUCCESS;
  *workspace = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    *workspace = NULL; /* as RunEntry maps it: too large for this device is the entry's */
    return beast_fail(beast_launch_failure(err), "%s: no workspace of %lld bytes (error %d)",
                      ctx->device_name, bytes, (int)err);
  }
  return BEAST_OK;
}

void beast_workspace_free(beast_context* ctx, void* workspace) {
  if (!workspace) return;
  if (ctx->backend == BEAST_BACKEND_CUDA) {
    beast_cuda_workspace_free(ctx, workspace);
  } else {
    clReleaseMemObject((cl_mem)workspace);
  }
}
