/* beast_workspace_cache.c: the workspace an OpenCL context keeps for plain
 * calls whose kernel needs one (Winograd's transforms, implicit GEMM's
 * widened weights). Allocating it per call cost each call the allocation
 * and, on a device that maps memory lazily (PoCL), a page fault per page
 * the kernel first touches: time the tuning, which allocates once, never
 * measured. One buffer, grown to the largest call's need, serves the calls
 * on in-order queues. A call holds it (the context's workspace_mutex) from
 * taking it until its kernels are enqueued, so two calls never interleave
 * their kernels in it; the event of the last kernel that used it is kept,
 * and a call on another queue than that kernel's first enqueues a barrier
 * that waits for it (for what that queue held up to it, not for what was
 * enqueued there since). A call on an out-of-order queue, whose kernels
 * could overlap the next call's, or one whose flush or barrier is refused,
 * allocates its own as before. */
#include "beast_runtime.h"

void beast_workspace_cache_init(beast_context* ctx) {
  pthread_mutex_init(&ctx->workspace_mutex, NULL);
  ctx->workspace_mutex_ready = 1;
}

/* With the mutex held (or the context going): lets the kept buffer go
 * (OpenCL frees it once the commands that use it have completed), its last
 * kernel's event and that kernel's queue. */
static void Drop(beast_context* ctx) {
  if (ctx->workspace) clReleaseMemObject(ctx->workspace);
  if (ctx->workspace_last) clReleaseEvent(ctx->workspace_last);
  if (ctx->workspace_queue) clReleaseCommandQueue(ctx->workspace_queue);
  ctx->workspace = NULL;
  ctx->workspace_bytes = 0;
  ctx->workspace_last = NULL;
  ctx->workspace_queue = NULL;
}

void beast_workspace_cache_free(beast_context* ctx) {
  if (!ctx->workspace_mutex_ready) return;
  Drop(ctx);
  pthread_mutex_destroy(&ctx->workspace_mutex);
  ctx->workspace_mutex_ready = 0;
}

/* With the mutex held: makes `queue` the kept buffer's, ordered after the
 * last kernel that used it on the queue before (flushed, so that it is
 * submitted and can complete). 0 when the flush or barrier is refused. */
static int MoveTo(beast_context* ctx, cl_command_queue queue) {
  if (ctx->workspace_last) {
    if (clFlush(ctx->workspace_queue) != CL_SUCCESS ||
        clEnqueueBarrierWithWaitList(queue, 1, &ctx->workspace_last, NULL) != CL_SUCCESS)
      return 0;
  }
  clRetainCommandQueue(queue);
  if (ctx->workspace_queue) clReleaseCommandQueue(ctx->workspace_queue);
  ctx->workspace_queue = queue;
  return 1;
}

static beast_status NoWorkspace(beast_context* ctx, const beast_entry* e, cl_int err) {
  return beast_fail(beast_launch_failure(err), "%s: no workspace of %lld bytes for %s (error %d)",
                    ctx->device_name, e->workspace_bytes, e->kernel_name, (int)err);
}

beast_status beast_call_workspace(beast_context* ctx, cl_command_queue queue, int in_order,
                                  const beast_entry* e, cl_mem* workspace, int* kept) {
  const size_t bytes = (size_t)e->workspace_bytes;
  cl_int err = CL_SUCCESS;
  *kept = 0;
  if (in_order) {
    pthread_mutex_lock(&ctx->workspace_mutex);
    if (ctx->workspace_queue == queue || MoveTo(ctx, queue)) {
      if (ctx->workspace_bytes < bytes) {
        /* The smaller one goes first (freed once its commands complete); a
         * fresh buffer has no earlier use to be ordered after. */
        if (ctx->workspace) clReleaseMemObject(ctx->workspace);
        ctx->workspace = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        ctx->workspace_bytes = err == CL_SUCCESS ? bytes : 0;
        if (err != CL_SUCCESS) {
          ctx->workspace = NULL;
          pthread_mutex_unlock(&ctx->workspace_mutex);
          return NoWorkspace(ctx, e, err);
        }
      }
      *workspace = ctx->workspace;
      *kept = 1;
      return BEAST_OK; /* the mutex stays held until beast_call_workspace_done */
    }
    pthread_mutex_unlock(&ctx->workspace_mutex);
  }
  *workspace = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    *workspace = NULL;
    return NoWorkspace(ctx, e, err);
  }
  return BEAST_OK;
}

void beast_call_workspace_done(beast_context* ctx, cl_mem workspace, int kept, cl_event last) {
  if (!kept) {
    if (workspace) clReleaseMemObject(workspace); /* freed once the call's commands complete */
    return;
  }
  if (last) {
    clRetainEvent(last);
    if (ctx->workspace_last) clReleaseEvent(ctx->workspace_last);
    ctx->workspace_last = last;
  }
  pthread_mutex_unlock(&ctx->workspace_mutex);
}

long long beast_context_workspace_bytes(beast_context* ctx) {
  if (!ctx || ctx->backend != BEAST_BACKEND_OPENCL || !ctx->workspace_mutex_ready) return 0;
  pthread_mutex_lock(&ctx->workspace_mutex);
  const long long bytes = (long long)ctx->workspace_bytes;
  pthread_mutex_unlock(&ctx->workspace_mutex);
  return bytes;
}

void beast_context_release_workspace(beast_context* ctx) {
  if (!ctx || ctx->backend != BEAST_BACKEND_OPENCL || !ctx->workspace_mutex_ready) return;
  pthread_mutex_lock(&ctx->workspace_mutex);
  Drop(ctx);
  pthread_mutex_unlock(&ctx->workspace_mutex);
}
