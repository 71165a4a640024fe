/* beast_workspace_cache.c: the workspace an OpenCL context keeps for plain
 * calls whose kernel needs one (split-K's partial sums, Winograd's
 * transforms). Allocating it per call cost each call the allocation and, on
 * a device that maps memory lazily (PoCL), a page fault per page the kernel
 * first touches — time the tuning, which allocates once, never measured.
 * One buffer, grown to the largest call's need, serves the calls on one
 * in-order queue at a time: the context's mutex for it is held from when a
 * call takes it until its kernels are enqueued, so two calls never enqueue
 * into it interleaved, and a call on another queue first orders that queue
 * after the last one's work. A call on an out-of-order queue, whose kernels
 * could overlap the next call's, allocates its own as before. */
#include "beast_runtime.h"

void beast_workspace_cache_init(beast_context* ctx) {
  pthread_mutex_init(&ctx->workspace_mutex, NULL);
  ctx->workspace_mutex_ready = 1;
}

/* With the mutex held (or the context going): frees the kept buffer (OpenCL frees it once the
 * commands that use it have completed) and lets go of its queue. */
static void Drop(beast_context* ctx) {
  if (ctx->workspace) clReleaseMemObject(ctx->workspace);
  if (ctx->workspace_queue) clReleaseCommandQueue(ctx->workspace_queue);
  ctx->workspace = NULL;
  ctx->workspace_bytes = 0;
  ctx->workspace_queue = NULL;
}

void beast_workspace_cache_free(beast_context* ctx) {
  if (!ctx->workspace_mutex_ready) return;
  Drop(ctx);
  pthread_mutex_destroy(&ctx->workspace_mutex);
  ctx->workspace_mutex_ready = 0;
}

/* Orders `queue` after everything enqueued so far on the kept buffer's last
 * queue: a marker there (flushed, so that it is submitted and can complete)
 * and a barrier here that waits for it. 0 when either is refused. */
static int OrderAfterLastQueue(beast_context* ctx, cl_command_queue queue) {
  cl_event last = NULL;
  if (clEnqueueMarkerWithWaitList(ctx->workspace_queue, 0, NULL, &last) != CL_SUCCESS) return 0;
  const int ok = clFlush(ctx->workspace_queue) == CL_SUCCESS &&
                 clEnqueueBarrierWithWaitList(queue, 1, &last, NULL) == CL_SUCCESS;
  clReleaseEvent(last);
  return ok;
}

static beast_status NoWorkspace(beast_context* ctx, const beast_entry* e, cl_int err) {
  return beast_fail(beast_launch_failure(err), "%s: no workspace of %lld bytes for %s (error %d)",
                    ctx->device_name, e->workspace_bytes, e->kernel_name, (int)err);
}

beast_status beast_workspace_take(beast_context* ctx, cl_command_queue queue, int in_order,
                                  const beast_entry* e, cl_mem* workspace, int* kept) {
  const size_t bytes = (size_t)e->workspace_bytes;
  cl_int err = CL_SUCCESS;
  *kept = 0;
  if (in_order) {
    pthread_mutex_lock(&ctx->workspace_mutex);
    int usable = 1;
    if (ctx->workspace_queue != queue) {
      if (ctx->workspace_queue && ctx->workspace && !OrderAfterLastQueue(ctx, queue)) {
        usable = 0;
      } else {
        clRetainCommandQueue(queue);
        if (ctx->workspace_queue) clReleaseCommandQueue(ctx->workspace_queue);
        ctx->workspace_queue = queue;
      }
    }
    if (usable && ctx->workspace_bytes < bytes) {
      /* A fresh buffer: no earlier command uses it, so it needs no order. */
      cl_mem grown = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
      if (err != CL_SUCCESS) {
        pthread_mutex_unlock(&ctx->workspace_mutex);
        return NoWorkspace(ctx, e, err);
      }
      if (ctx->workspace) clReleaseMemObject(ctx->workspace);
      ctx->workspace = grown;
      ctx->workspace_bytes = bytes;
    }
    if (usable) {
      *workspace = ctx->workspace;
      *kept = 1;
      return BEAST_OK; /* the mutex stays held until beast_workspace_give */
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

void beast_workspace_give(beast_context* ctx, cl_mem workspace, int kept) {
  if (kept) {
    pthread_mutex_unlock(&ctx->workspace_mutex);
  } else if (workspace) {
    clReleaseMemObject(workspace); /* freed once the call's commands have completed */
  }
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
