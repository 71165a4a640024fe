/* beast_prepared.c: weights prepared once for many convolutions
 * (beast_conv2d_prepare, beast_tuned.h). A handle keeps the tuned entry a
 * call would run and, when that entry has prepare stages (Winograd's filter
 * transform), a workspace of its own those stages filled once; its calls
 * run the entry's other kernels on that workspace. Whatever the handle
 * cannot serve — no prepare stages, an entry that failed since, buffers
 * the entry cannot take — becomes a plain beast_conv2d_forward call with
 * the handle's problem and weights, so a prepared call computes exactly what
 * a plain one does. */
#include <stdlib.h>

#include "beast_runtime.h"

struct beast_conv2d_prepared {
  beast_context* ctx;
  beast_conv2d_problem problem;
  void* w;
  void* bias;
  /* The tuned entry whose prepare stages filled `workspace`; NULL when the
   * calls are plain ones. */
  const beast_entry* entry;
  void* workspace;
};

/* Drops the prepared entry: the handle's calls become plain ones. */
static void Unprepare(beast_conv2d_prepared* p) {
  beast_workspace_free(p->ctx, p->workspace);
  p->workspace = NULL;
  p->entry = NULL;
}

beast_status beast_conv2d_prepare(beast_context* ctx, const beast_conv2d_problem* problem, void* w,
                                  void* bias, void* queue, beast_conv2d_prepared** prepared) {
  static const char kFn[] = "beast_conv2d_prepare";
  beast_clear_error();
  if (!ctx || !problem || !w || !prepared) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: a NULL argument", kFn);
  }
  *prepared = NULL;
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_conv2d_call_shape(kFn, problem, bias, shape, key, sizeof key);
  if (status != BEAST_OK) return status;
  beast_conv2d_prepared* p = (beast_conv2d_prepared*)calloc(1, sizeof *p);
  if (!p) return beast_fail(BEAST_ERROR_DEVICE, "%s: out of host memory", kFn);
  p->ctx = ctx;
  p->problem = *problem;
  p->w = w;
  p->bias = bias;
  /* The entry a call with prepared weights runs (beast_select's prepared
   * tier); one that fails while preparing is passed over for the next, as a
   * call passes it over. */
  for (const beast_entry* e; (e = beast_select(ctx, BEAST_OP_CONV2D, shape, key, 1)) != NULL;) {
    if (!beast_entry_prepares(e)) break;
    status = beast_workspace_alloc(ctx, e->workspace_bytes, &p->workspace);
    if (status == BEAST_OK) {
      status = beast_conv2d_entry_phase(ctx, e, problem, NULL, w, bias, NULL, p->workspace,
                                        BEAST_PHASE_PREPARE, queue, kFn);
    }
    if (status == BEAST_OK) {
      p->entry = e;
      break;
    }
    Unprepare(p);
    if (!beast_entry_fell_over(ctx, e, status)) break;
    status = BEAST_OK; /* passed over: the next entry serves, or plain calls */
  }
  if (status != BEAST_OK && status != BEAST_ERROR_NOT_TUNED) {
    free(p);
    return status; /* a broken argument or device: the caller is told */
  }
  beast_clear_error(); /* no prepare stages: the handle's calls are plain ones */
  *prepared = p;
  return BEAST_OK;
}

beast_status beast_conv2d_forward_prepared(beast_context* ctx, beast_conv2d_prepared* prepared,
                                           void* x, void* y, void* queue) {
  static const char kFn[] = "beast_conv2d_forward_prepared";
  beast_clear_error();
  if (!ctx || !prepared || !x || !y) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: a NULL argument", kFn);
  }
  if (ctx != prepared->ctx) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "%s: the handle was prepared on another beast context", kFn);
  }
  beast_conv2d_prepared* p = prepared;
  if (p->entry) {
    /* Retired since by another call on this context: a plain call serves. */
    pthread_mutex_lock(&ctx->mutex);
    const int failed = beast_entry_failed(ctx, p->entry);
    pthread_mutex_unlock(&ctx->mutex);
    if (failed) Unprepare(p);
  }
  if (p->entry) {
    beast_status status = beast_conv2d_entry_phase(ctx, p->entry, &p->problem, x, p->w, p->bias, y,
                                                   p->workspace, BEAST_PHASE_PREPARED, queue, kFn);
    if (status == BEAST_OK ||
        (status != BEAST_ERROR_NOT_TUNED && !beast_entry_fell_over(ctx, p->entry, status))) {
      return status;
    }
    if (status != BEAST_ERROR_NOT_TUNED) Unprepare(p); /* the entry failed here: never again */
  }
  return beast_conv2d_forward(ctx, &p->problem, x, p->w, p->bias, y, queue);
}

void beast_conv2d_prepared_destroy(beast_conv2d_prepared* prepared) {
  if (!prepared) return;
  Unprepare(prepared);
  free(prepared);
}
