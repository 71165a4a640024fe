/* beast_dispatch.c: checks a call's problem, turns it into the shape fields
 * and canonical key beast uses, picks the tuned entry for it on a context's
 * device, and explains that choice. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "beast_runtime.h"

static const char* const kDtypeNames[] = {"f32", "f64", "f16", "bf16"};
static const size_t kDtypeBytes[] = {4, 8, 2, 2};

static int KnownDtype(beast_dtype dtype) { return (unsigned)dtype < 4u; }

size_t beast_dtype_bytes(beast_dtype dtype) { return kDtypeBytes[dtype]; }

const char* beast_generic_kernel(beast_op op, beast_dtype dtype) {
  static const char* const kConv[] = {"beast_generic_conv2d", "beast_generic_conv2d_f64",
                                      "beast_generic_conv2d_f16", "beast_generic_conv2d_bf16"};
  static const char* const kGemm[] = {"beast_generic_gemm", "beast_generic_gemm_f64",
                                      "beast_generic_gemm_f16", "beast_generic_gemm_bf16"};
  return op == BEAST_OP_CONV2D ? kConv[dtype] : kGemm[dtype];
}

beast_status beast_conv2d_call_shape(const char* fn, const beast_conv2d_problem* problem,
                                     const void* bias, long long shape[BEAST_SHAPE_FIELDS],
                                     char* key, size_t key_len) {
  if ((problem->bias == 1) != (bias != NULL)) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "%s: problem->bias is %d but bias is %s", fn,
                      problem->bias, bias ? "given" : "NULL");
  }
  return beast_conv2d_shape(problem, shape, key, key_len);
}

static long long OutSize(long long in, long long pad, long long dilation, long long taps,
                         long long stride) {
  long long span = in + 2 * pad - dilation * (taps - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

/* Fails unless the product of the n factors, the element count of buffer
 * `name`, stays below 2^60 (the kernels' long indices) and its bytes (8 at
 * most per element) fit a size_t: on a 32-bit machine, SIZE_MAX / 8. */
static beast_status CheckCount(const char* op, const char* name, const long long* factors, int n) {
  const int narrow = (unsigned long long)SIZE_MAX / 8 < (1ULL << 60);
  const long long limit = narrow ? (long long)(SIZE_MAX / 8) : 1LL << 60;
  long long count = 1;
  for (int i = 0; i < n; ++i) {
    if (factors[i] > 0 && count > limit / factors[i]) {
      return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                        narrow ? "%s: %s would hold more elements than this 32-bit machine "
                                 "addresses; no buffer is that large"
                               : "%s: %s would hold more than 2^60 elements; no buffer is that "
                                 "large",
                        op, name);
    }
    count *= factors[i];
  }
  return BEAST_OK;
}

beast_status beast_conv2d_shape(const beast_conv2d_problem* p, long long shape[BEAST_SHAPE_FIELDS],
                                char* key, size_t key_len) {
  const int positive[] = {p->n, p->c,        p->h,        p->w,          p->k,          p->r,
                          p->s, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w, p->groups};
  const char* names[] = {"n", "c",        "h",        "w",          "k",          "r",
                         "s", "stride_h", "stride_w", "dilation_h", "dilation_w", "groups"};
  for (size_t i = 0; i < sizeof positive / sizeof positive[0]; ++i) {
    if (positive[i] <= 0) {
      return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "conv2d: %s must be positive, not %d",
                        names[i], positive[i]);
    }
  }
  if (p->pad_h < 0 || p->pad_w < 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "conv2d: padding must not be negative");
  }
  if (p->c % p->groups != 0 || p->k % p->groups != 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "conv2d: groups=%d must divide c=%d and k=%d",
                      p->groups, p->c, p->k);
  }
  if (p->layout != BEAST_LAYOUT_NCHW && p->layout != BEAST_LAYOUT_NHWC) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "conv2d: unknown layout %d", (int)p->layout);
  }
  if (!KnownDtype(p->dtype)) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "conv2d: unknown dtype %d", (int)p->dtype);
  }
  if (p->bias != 0 && p->bias != 1) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "conv2d: bias must be 0 or 1, not %d", p->bias);
  }
  if (OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h) <= 0 ||
      OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w) <= 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "conv2d: the filter is larger than the padded input");
  }
  const long long p_out = OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h);
  const long long q_out = OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w);
  if (p_out > INT_MAX || q_out > INT_MAX) { /* the kernels take the output's sides as ints */
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "conv2d: the output would be %lld x %lld pixels, more than %d a side", p_out,
                      q_out, INT_MAX);
  }
  const long long x_dims[] = {p->n, p->c, p->h, p->w};
  const long long w_dims[] = {p->k, p->c / p->groups, p->r, p->s};
  const long long y_dims[] = {p->n, p->k, p_out, q_out};
  beast_status status = CheckCount("conv2d", "x", x_dims, 4);
  if (status == BEAST_OK) status = CheckCount("conv2d", "w", w_dims, 4);
  if (status == BEAST_OK) status = CheckCount("conv2d", "y", y_dims, 4);
  if (status != BEAST_OK) return status;
  const long long fields[BEAST_SHAPE_FIELDS] = {
      p->n,          p->c,        p->h,        p->w,     p->k,     p->r,
      p->s,          p->stride_h, p->stride_w, p->pad_h, p->pad_w, p->dilation_h,
      p->dilation_w, p->groups,   p->layout,   p->bias,  p->dtype};
  memcpy(shape, fields, sizeof fields);
  snprintf(key, key_len,
           "conv2d:N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,S=%d,stride_h=%d,stride_w=%d,pad_h=%d,pad_w=%d,"
           "dilation_h=%d,dilation_w=%d,groups=%d%s,layout=%s,dtype=%s",
           p->n, p->c, p->h, p->w, p->k, p->r, p->s, p->stride_h, p->stride_w, p->pad_h, p->pad_w,
           p->dilation_h, p->dilation_w, p->groups, p->bias ? ",bias=1" : "",
           p->layout == BEAST_LAYOUT_NCHW ? "NCHW" : "NHWC", kDtypeNames[p->dtype]);
  return BEAST_OK;
}

beast_status beast_gemm_shape(const beast_gemm_problem* p, long long shape[BEAST_SHAPE_FIELDS],
                              char* key, size_t key_len) {
  if (p->m <= 0 || p->n <= 0 || p->k <= 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "gemm: m, n and k must be positive, not %d, %d, %d", p->m, p->n, p->k);
  }
  if ((p->trans_a != 0 && p->trans_a != 1) || (p->trans_b != 0 && p->trans_b != 1) ||
      (p->col_major != 0 && p->col_major != 1)) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "gemm: trans_a, trans_b and col_major must be 0 or 1");
  }
  if (!KnownDtype(p->dtype)) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "gemm: unknown dtype %d", (int)p->dtype);
  }
  const long long a_dims[] = {p->m, p->k}, b_dims[] = {p->k, p->n}, c_dims[] = {p->m, p->n};
  beast_status status = CheckCount("gemm", "a", a_dims, 2);
  if (status == BEAST_OK) status = CheckCount("gemm", "b", b_dims, 2);
  if (status == BEAST_OK) status = CheckCount("gemm", "c", c_dims, 2);
  if (status != BEAST_OK) return status;
  memset(shape, 0, sizeof(long long) * BEAST_SHAPE_FIELDS);
  shape[0] = p->m;
  shape[1] = p->n;
  shape[2] = p->k;
  shape[3] = p->trans_a;
  shape[4] = p->trans_b;
  shape[5] = p->col_major;
  shape[BEAST_SHAPE_DTYPE] = p->dtype;
  snprintf(key, key_len, "gemm:M=%d,N=%d,K=%d,transA=%d,transB=%d%s,dtype=%s", p->m, p->n, p->k,
           p->trans_a, p->trans_b, p->col_major ? ",layout=col" : "", kDtypeNames[p->dtype]);
  return BEAST_OK;
}

void beast_conv2d_bytes(const beast_conv2d_problem* p, size_t bytes[4]) {
  size_t out_h = (size_t)OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h);
  size_t out_w = (size_t)OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w);
  const size_t e = kDtypeBytes[p->dtype];
  bytes[0] = e * (size_t)p->n * (size_t)p->c * (size_t)p->h * (size_t)p->w;
  bytes[1] = e * (size_t)p->k * (size_t)(p->c / p->groups) * (size_t)p->r * (size_t)p->s;
  bytes[2] = p->bias ? e * (size_t)p->k : 0;
  bytes[3] = e * (size_t)p->n * (size_t)p->k * out_h * out_w;
}

int beast_conv2d_generic_ints(const beast_conv2d_problem* p, int ints[BEAST_GENERIC_CONV2D_INTS]) {
  const int values[BEAST_GENERIC_CONV2D_INTS] = {
      p->n,
      p->c,
      p->h,
      p->w,
      p->k,
      p->r,
      p->s,
      (int)OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h),
      (int)OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w),
      p->stride_h,
      p->stride_w,
      p->pad_h,
      p->pad_w,
      p->dilation_h,
      p->dilation_w,
      p->groups,
      p->layout == BEAST_LAYOUT_NHWC,
      p->bias};
  memcpy(ints, values, sizeof values);
  return BEAST_GENERIC_CONV2D_INTS;
}

void beast_gemm_bytes(const beast_gemm_problem* p, size_t bytes[3]) {
  const size_t e = kDtypeBytes[p->dtype];
  bytes[0] = e * (size_t)p->m * (size_t)p->k;
  bytes[1] = e * (size_t)p->k * (size_t)p->n;
  bytes[2] = e * (size_t)p->m * (size_t)p->n;
}

static int Fits(const beast_context* ctx, const beast_entry* e) {
  size_t group = e->local[0] * e->local[1] * e->local[2];
  if (group > ctx->max_work_group_size) return 0;
  for (int d = 0; d < 3; ++d) {
    if (e->local[d] > ctx->max_work_item_sizes[d]) return 0;
  }
  if (e->dynamic_local_bytes > 0 && (cl_ulong)e->dynamic_local_bytes > ctx->local_mem_bytes)
    return 0;
  return 1;
}

/* Lower is better: this device before others, exact before nearest. */
static int Tier(const beast_context* ctx, const beast_entry* e) {
  return (strcmp(e->device_name, ctx->device_name) == 0 ? 0 : 2) + (e->nearest ? 1 : 0);
}

/* Whether a serves ctx better than b: by tier; on this device the same
 * driver beats another one; then the faster tuned time. */
static int Better(const beast_context* ctx, const beast_entry* a, const beast_entry* b) {
  int ta = Tier(ctx, a), tb = Tier(ctx, b);
  if (ta != tb) return ta < tb;
  if (ta < 2) {
    int da = strcmp(a->device_driver, ctx->device_driver) == 0;
    int db = strcmp(b->device_driver, ctx->device_driver) == 0;
    if (da != db) return da;
  }
  return a->median_ms < b->median_ms;
}

const beast_entry* beast_select(beast_context* ctx, beast_op op,
                                const long long shape[BEAST_SHAPE_FIELDS], const char* key,
                                int prepared) {
  const beast_entry* best = NULL;
  int tuned = 0, failed = 0;
  const int other_calls = prepared ? BEAST_CALLS_PLAIN : BEAST_CALLS_PREPARED;
  pthread_mutex_lock(&ctx->mutex);
  for (int i = 0; i < beast_entry_count; ++i) {
    const beast_entry* e = &beast_entries[i];
    if (e->op != op || memcmp(e->shape, shape, sizeof e->shape) != 0) continue;
    if (e->calls == other_calls) continue;         /* the winner for the other kind of call */
    if (e->backend != (int)ctx->backend) continue; /* compiled for the other kind of device */
    ++tuned;
    if (beast_entry_failed(ctx, e)) {
      ++failed;
      continue;
    }
    /* A CUDA entry needs a cubin or PTX this GPU runs; every entry must fit
     * this device's work-group limits (one tuned elsewhere may not). */
    if (ctx->backend == BEAST_BACKEND_CUDA ? !beast_cuda_fits(ctx, e) : !Fits(ctx, e)) continue;
    if (!best || Better(ctx, e, best)) best = e;
  }
  pthread_mutex_unlock(&ctx->mutex);
  if (best) return best;
  if (failed) {
    beast_fail(BEAST_ERROR_NOT_TUNED, "%d of the %d tuned kernels for %s failed on %s%s", failed,
               tuned, key, ctx->device_name,
               failed < tuned ? ", the others do not fit its work-group limits" : "");
  } else if (tuned) {
    beast_fail(BEAST_ERROR_NOT_TUNED,
               "%s was tuned only on devices whose work-group size %s cannot launch", key,
               ctx->device_name);
  } else {
    beast_fail(BEAST_ERROR_NOT_TUNED,
               "no tuned kernel for %s (tune it with beast tune, or name it to beast export "
               "--problem for a nearby tuned config, and export again)",
               key);
  }
  return NULL;
}

/* Whether any entry of this library was tuned on ctx's device. */
static int TunedHere(const beast_context* ctx) {
  for (int i = 0; i < beast_entry_count; ++i) {
    if (beast_entries[i].backend == (int)ctx->backend &&
        strcmp(beast_entries[i].device_name, ctx->device_name) == 0) {
      return 1;
    }
  }
  return 0;
}

static beast_status Explain(beast_context* ctx, beast_op op,
                            const long long shape[BEAST_SHAPE_FIELDS], const char* key, char* buf,
                            size_t len) {
  const beast_entry* e = beast_select(ctx, op, shape, key, 0);
  char failure[1200];
  beast_entry_failure_note(ctx, op, shape, failure, sizeof failure);
  const char* untuned = TunedHere(ctx) ? "" : " (this library was not tuned on this device)";
  if (!e) {
    /* beast_select said why no tuned kernel serves the shape. */
    snprintf(buf, len,
             "%s -> generic kernel %s (correct for every shape, not tuned): %s%s%s; running on "
             "%s%s",
             key, beast_generic_kernel(op, (beast_dtype)shape[BEAST_SHAPE_DTYPE]),
             beast_last_error(), failure[0] ? "; " : "", failure, ctx->device_name, untuned);
    beast_clear_error();
    return BEAST_OK;
  }
  int same = strcmp(e->device_name, ctx->device_name) == 0;
  char image[96] = "";
  if (e->backend == BEAST_BACKEND_CUDA) {
    const beast_cuda_module* m = &beast_cuda_modules[e->program];
    if (strcmp(m->arch, ctx->cuda->arch) == 0) {
      snprintf(image, sizeof image, " (cubin for %s)", m->arch);
    } else {
      snprintf(image, sizeof image, " (PTX for compute_%d, JIT-compiled for %s)", m->ptx_cc,
               ctx->cuda->arch);
    }
  }
  char tier[768];
  if (e->nearest) {
    snprintf(tier, sizeof tier,
             "nearest tuned: config of %s tuned for %s (distance %.3f), rendered for this shape",
             e->template_name, e->source_problem, e->distance);
  } else {
    snprintf(tier, sizeof tier, "exact tuned: %s", e->template_name);
  }
  snprintf(buf, len,
           "%s -> %s (kernel %s%s) config %s, global %zux%zux%zu local %zux%zux%zu; tuned on %s "
           "(%s, driver %s) at %.6g ms%s%s; running on %s%s%s%s%s",
           key, tier, e->kernel_name, image, e->config_key, e->global[0], e->global[1],
           e->global[2], e->local[0], e->local[1], e->local[2], e->device_name, e->device_vendor,
           e->device_driver, e->median_ms, e->nearest ? " for " : "",
           e->nearest ? e->source_problem : "", ctx->device_name,
           same ? "" : " (not the tuning device: a kernel tuned elsewhere)", untuned,
           failure[0] ? "; " : "", failure);
  /* Calls with prepared weights may run another winner (beast_table.h). */
  const beast_entry* p = op == BEAST_OP_CONV2D ? beast_select(ctx, op, shape, key, 1) : NULL;
  beast_clear_error();
  if (p && p != e) {
    const size_t used = strlen(buf);
    snprintf(buf + used, len - used,
             "; with prepared weights (beast_conv2d_prepare): %s (kernel %s) config %s at %.6g "
             "ms, its weight transform run once",
             p->template_name, p->kernel_name, p->config_key, p->median_ms);
  }
  return BEAST_OK;
}

beast_status beast_explain_conv2d(beast_context* ctx, const beast_conv2d_problem* problem,
                                  char* buf, size_t len) {
  beast_clear_error();
  if (!ctx || !problem || !buf || len == 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT,
                      "beast_explain_conv2d: a NULL argument or len 0");
  }
  buf[0] = '\0';
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_conv2d_shape(problem, shape, key, sizeof key);
  return status != BEAST_OK ? status : Explain(ctx, BEAST_OP_CONV2D, shape, key, buf, len);
}

beast_status beast_explain_gemm(beast_context* ctx, const beast_gemm_problem* problem, char* buf,
                                size_t len) {
  beast_clear_error();
  if (!ctx || !problem || !buf || len == 0) {
    return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_explain_gemm: a NULL argument or len 0");
  }
  buf[0] = '\0';
  long long shape[BEAST_SHAPE_FIELDS];
  char key[512];
  beast_status status = beast_gemm_shape(problem, shape, key, sizeof key);
  return status != BEAST_OK ? status : Explain(ctx, BEAST_OP_GEMM, shape, key, buf, len);
}

int beast_tuned_entry_count(void) { return beast_entry_count; }

const char* beast_export_info(void) { return beast_export_stamp; }
