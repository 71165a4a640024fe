/* consumer.h: what the checks of the export consumer share — reporting, seeded
 * random inputs, and problems with their CPU reference (in double) and the
 * error bound each output is checked against. */
#ifndef CONSUMER_H_
#define CONSUMER_H_

#include <stddef.h>
#include <stdint.h>

#include "beast_tuned.h"

/* |y - ref| / sum|products| may not exceed this: float rounding of sums of
 * tens of terms stays well below it, an indexing error lands far above. */
#define TOLERANCE 1e-5

/* Checks that failed so far (Report counts them). */
extern int failures;

/* Prints "ok WHAT[: DETAIL]" or "FAIL WHAT[: DETAIL]". */
void Report(int ok, const char* what, const char* detail);

/* count floats uniform in [-1, 1), multiples of 2^-23, from a splitmix64 stream. */
float* RandomInputs(size_t count, uint64_t seed);

/* Largest |y - ref| / bound over the outputs (a NaN output counts as worst). */
double MaxRelativeError(const float* y, const double* ref, const double* bound, size_t n);

int OutSize(int in, int pad, int dilation, int taps, int stride);

/* One conv2d problem's data (b: NULL unless p.bias) and its reference. */
typedef struct ConvCase {
  beast_conv2d_problem p;
  float *x, *w, *b;
  double *ref, *bound;
  size_t x_count, w_count, y_count;
} ConvCase;

ConvCase MakeConvCase(beast_conv2d_problem p, uint64_t seed);
/* The reference of t->p on t's inputs (fills t->ref and t->bound). */
void ReferenceConv(ConvCase* t);
void FreeConvCase(ConvCase* t);

/* One gemm problem's data and its reference. */
typedef struct GemmCase {
  beast_gemm_problem p;
  float *a, *b;
  double *ref, *bound;
  size_t a_count, b_count, c_count;
} GemmCase;

GemmCase MakeGemmCase(beast_gemm_problem p, uint64_t seed);
/* The reference of t->p on t's inputs (fills t->ref and t->bound). */
void ReferenceGemm(GemmCase* t);
void FreeGemmCase(GemmCase* t);

/* Reports a call's outcome: its status, then its output against the reference. */
void CheckOutput(const char* what, beast_status status, const float* y, const double* ref,
                 const double* bound, size_t count);

/* Runs p through the host API (output poisoned with NaN first) on seeded
 * inputs, reports "WHAT: result" against the reference and "WHAT: explain"
 * for whether beast_explain's answer holds every string of `expect`
 * (NULL-terminated). */
void CheckConvCall(beast_context* ctx, beast_conv2d_problem p, uint64_t seed, const char* what,
                   const char* const* expect);
void CheckGemmCall(beast_context* ctx, beast_gemm_problem p, uint64_t seed, const char* what,
                   const char* const* expect);

/* Asks beast_explain about a problem and reports whether the answer holds
 * every one of the NULL-terminated `expect` strings. */
void CheckExplainConv(beast_context* ctx, const beast_conv2d_problem* p, const char* what,
                      const char* const* expect);
void CheckExplainGemm(beast_context* ctx, const beast_gemm_problem* p, const char* what,
                      const char* const* expect);

/* Adds ctx's program cache counts (beast_cache_stats) to the totals that
 * PrintCacheTotals prints as "cache built=B loaded=L rejected=R"; call it
 * before destroying each context that ran kernels. */
void CountCache(beast_context* ctx);
void PrintCacheTotals(void);

/* The checks, one file each. */
void CheckDeviceApi(void);
void CheckDispatch(beast_context* ctx);
void CheckThreads(void);
/* path: beast's tests/data/onnx_conv_cases.txt */
void CheckGolden(beast_context* ctx, const char* path);
/* path: the random shapes export_test.cpp wrote (random_shapes.c) */
void CheckRandomShapes(beast_context* ctx, const char* path);
/* The library's entry count that file states; -1 when it cannot be read. */
int ReadExpectedEntries(const char* path);

#endif /* CONSUMER_H_ */
