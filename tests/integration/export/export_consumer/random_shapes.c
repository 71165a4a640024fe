/* random_shapes.c: the 30 random shapes export_test.cpp drew (its
 * random_shapes.txt, the consumer's second argument), some tuned and some
 * not, through the host API against the reference; beast_explain must name
 * the exact tuned kernel of a tuned one and the generic kernel of the others.
 * The file: "entries N" (the library's entry count), then one line per shape,
 * "tuned" or "untuned" and then
 *   conv N C H W K R S stride_h stride_w pad_h pad_w dilation_h dilation_w
 *        groups nhwc bias TEMPLATE
 *   gemm M N K trans_a trans_b col_major TEMPLATE
 * (TEMPLATE "-" for an untuned shape). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

int ReadExpectedEntries(const char* path) {
  FILE* file = fopen(path, "r");
  int entries = -1;
  if (file && fscanf(file, "entries %d", &entries) != 1) entries = -1;
  if (file) fclose(file);
  return entries;
}

/* Runs one shape; returns 0 when both its result and its explanation hold. */
static int RunShape(beast_context* ctx, const char* op, int tuned, const int* v,
                    const char* template_name, int index) {
  int before = failures;
  char what[160], expect[160];
  if (tuned) {
    snprintf(expect, sizeof expect, "-> exact tuned: %s (kernel ", template_name);
  } else {
    snprintf(expect, sizeof expect, "-> generic kernel beast_generic_%s",
             strcmp(op, "conv") == 0 ? "conv2d" : "gemm");
  }
  const char* const expected[] = {expect, NULL};
  snprintf(what, sizeof what, "random shape %d (%s %s)", index, tuned ? "tuned" : "untuned",
           strcmp(op, "conv") == 0 ? "conv2d" : "gemm");
  if (strcmp(op, "conv") == 0) {
    beast_conv2d_problem p = {v[0],
                              v[1],
                              v[2],
                              v[3],
                              v[4],
                              v[5],
                              v[6],
                              v[7],
                              v[8],
                              v[9],
                              v[10],
                              v[11],
                              v[12],
                              v[13],
                              v[14] ? BEAST_LAYOUT_NHWC : BEAST_LAYOUT_NCHW,
                              BEAST_DTYPE_F32,
                              v[15]};
    CheckConvCall(ctx, p, 1000 + (uint64_t)index, what, expected);
  } else {
    beast_gemm_problem p = {v[0], v[1], v[2], v[3], v[4], BEAST_DTYPE_F32, v[5]};
    CheckGemmCall(ctx, p, 2000 + (uint64_t)index, what, expected);
  }
  return failures > before;
}

void CheckRandomShapes(beast_context* ctx, const char* path) {
  FILE* file = fopen(path, "r");
  char detail[256];
  if (!file) {
    snprintf(detail, sizeof detail, "cannot read %s", path);
    Report(0, "random shapes", detail);
    return;
  }
  int entries = 0, shapes = 0, tuned_shapes = 0, first_failed = -1;
  if (fscanf(file, "entries %d", &entries) != 1) shapes = -1;
  char state[16], op[8], template_name[64];
  while (shapes >= 0 && fscanf(file, "%15s %7s", state, op) == 2) {
    const int fields = strcmp(op, "conv") == 0 ? 16 : 6;
    int v[16], read = 0;
    for (int i = 0; i < fields; ++i) read += fscanf(file, "%d", &v[i]);
    if (read != fields || fscanf(file, "%63s", template_name) != 1) {
      shapes = -1;
      break;
    }
    const int tuned = strcmp(state, "tuned") == 0;
    tuned_shapes += tuned;
    if (RunShape(ctx, op, tuned, v, template_name, shapes) && first_failed < 0)
      first_failed = shapes;
    ++shapes;
  }
  fclose(file);
  if (shapes < 0) {
    snprintf(detail, sizeof detail, "%s is malformed", path);
    Report(0, "random shapes", detail);
    return;
  }
  snprintf(detail, sizeof detail, "%d shapes, %d of them tuned%s", shapes, tuned_shapes,
           first_failed >= 0 ? ", failures from shape " : "");
  if (first_failed >= 0) snprintf(detail + strlen(detail), 16, "%d", first_failed);
  Report(shapes == 30 && tuned_shapes > 0 && tuned_shapes < 30 && first_failed < 0,
         "30 random shapes, tuned and untuned", detail);
}
