/* beast_entry_failures.c: tuned entries that failed on a context's device.
 * A tuned kernel can fail where it was not measured — its program does not
 * build or load with this driver, the device refuses its launch — and the
 * call must still be served. Such an entry is remembered per context with
 * its reason; beast_select passes it over from then on, so the next tuned
 * entry or the generic kernel (correct for every shape) runs instead, and
 * beast_explain tells why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beast_runtime.h"

/* The reason kept when there is no memory to copy the real one: the entry
 * must still be passed over, or the caller would pick it again and again. */
static char kReasonLost[] = "(its reason is lost: out of host memory)";

beast_status beast_entry_failures_init(beast_context* ctx) {
  ctx->entry_failure = (char**)calloc((size_t)beast_entry_count + 1, sizeof(char*));
  return ctx->entry_failure ? BEAST_OK : beast_fail(BEAST_ERROR_DEVICE, "out of host memory");
}

void beast_entry_failures_free(beast_context* ctx) {
  for (int i = 0; ctx->entry_failure && i < beast_entry_count; ++i) {
    if (ctx->entry_failure[i] != kReasonLost) free(ctx->entry_failure[i]);
  }
  free(ctx->entry_failure);
  ctx->entry_failure = NULL;
}

int beast_entry_fell_over(beast_context* ctx, const beast_entry* e, beast_status status) {
  /* A call served after an entry was passed over reports no failure. */
  if (status == BEAST_OK) beast_clear_error();
  if (!e || (status != BEAST_ERROR_BUILD && status != BEAST_ERROR_LAUNCH)) return 0;
  const char* why = beast_last_error();
  char* copy = (char*)malloc(strlen(why) + 1);
  if (copy) strcpy(copy, why);
  pthread_mutex_lock(&ctx->mutex);
  char** slot = &ctx->entry_failure[e - beast_entries];
  if (!*slot) {
    *slot = copy ? copy : kReasonLost;
    copy = NULL;
  }
  pthread_mutex_unlock(&ctx->mutex);
  free(copy);
  return 1;
}

int beast_entry_failed(const beast_context* ctx, const beast_entry* e) {
  return ctx->entry_failure[e - beast_entries] != NULL;
}

int beast_entry_failure_note(beast_context* ctx, beast_op op,
                             const long long shape[BEAST_SHAPE_FIELDS], char* buf, size_t len) {
  int failed = 0;
  buf[0] = '\0';
  pthread_mutex_lock(&ctx->mutex);
  for (int i = 0; i < beast_entry_count; ++i) {
    const beast_entry* e = &beast_entries[i];
    if (e->op != op || memcmp(e->shape, shape, sizeof e->shape) != 0) continue;
    if (!ctx->entry_failure[i]) continue;
    if (!failed++) {
      snprintf(buf, len, "tuned kernel %s (%s, %s) failed here, passed over: %s", e->kernel_name,
               e->template_name, e->config_key, ctx->entry_failure[i]);
    }
  }
  pthread_mutex_unlock(&ctx->mutex);
  return failed;
}
