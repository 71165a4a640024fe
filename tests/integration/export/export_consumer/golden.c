/* golden.c: the 17 ONNX backend Conv node tests (onnx_conv_cases.txt in the
 * beast tree: shape, then the tensors x, w, b and the expected y, NCHW with
 * the filter KCRS) through the host API, in NCHW as given and transposed to
 * NHWC, each output compared with ONNX's expected one. The file's path is an
 * argument, so the consumer needs nothing else from the tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

#define MAX_CASES 64

typedef struct Golden {
  char name[128];
  beast_conv2d_problem p;
  float* t[4]; /* x, w, b, y as read */
  size_t count[4];
} Golden;

/* Appends v to tensor `which` of g. */
static void Push(Golden* g, int which, float v) {
  if ((g->count[which] & (g->count[which] - 1)) == 0) { /* 0, 1, 2, 4...: grow */
    size_t capacity = g->count[which] ? g->count[which] * 2 : 1;
    g->t[which] = (float*)realloc(g->t[which], capacity * sizeof(float));
  }
  g->t[which][g->count[which]++] = v;
}

/* Reads the case file; returns the number of cases, or -1 with a message. */
static int ReadCases(const char* path, Golden* cases, char* why, size_t why_len) {
  FILE* file = fopen(path, "r");
  if (!file) {
    snprintf(why, why_len, "cannot read %s", path);
    return -1;
  }
  int n = 0, which = -1;
  char token[256];
  while (fscanf(file, "%255s", token) == 1) {
    char* end = NULL;
    float v = strtof(token, &end);
    if (token[0] == '#') {
      int ch;
      while ((ch = fgetc(file)) != EOF && ch != '\n') {
      }
    } else if (strcmp(token, "case") == 0) {
      if (n == MAX_CASES) break;
      Golden* g = &cases[n++];
      memset(g, 0, sizeof *g);
      beast_conv2d_problem* p = &g->p;
      if (fscanf(file, "%127s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d", g->name, &p->n, &p->c,
                 &p->h, &p->w, &p->k, &p->r, &p->s, &p->stride_h, &p->stride_w, &p->pad_h,
                 &p->pad_w, &p->dilation_h, &p->dilation_w, &p->groups, &p->bias) != 16) {
        snprintf(why, why_len, "%s: malformed case line %d", path, n);
        n = -1;
        break;
      }
      which = -1;
    } else if (n > 0 && strlen(token) == 1 && strchr("xwby", token[0])) {
      which = (int)(strchr("xwby", token[0]) - "xwby");
    } else if (n > 0 && which >= 0 && end && *end == '\0' && end != token) {
      Push(&cases[n - 1], which, v);
    } else {
      snprintf(why, why_len, "%s: unexpected \"%s\" in case %d", path, token, n);
      n = -1;
      break;
    }
  }
  fclose(file);
  return n;
}

/* NCHW x[n][c][h][w] -> NHWC x[n][h][w][c] (y alike with k), and KCRS -> KRSC. */
static float* ToChannelsLast(const float* v, int n, int c, int h, int w) {
  float* out = (float*)malloc((size_t)n * c * h * w * sizeof(float));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < c; ++b)
      for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j)
          out[(((size_t)a * h + i) * w + j) * c + b] = v[(((size_t)a * c + b) * h + i) * w + j];
  return out;
}

static void RunCase(beast_context* ctx, const Golden* g, beast_layout layout) {
  ConvCase t;
  memset(&t, 0, sizeof t);
  t.p = g->p;
  t.p.layout = layout;
  t.p.dtype = BEAST_DTYPE_F32;
  const beast_conv2d_problem* p = &t.p;
  const int P = OutSize(p->h, p->pad_h, p->dilation_h, p->r, p->stride_h);
  const int Q = OutSize(p->w, p->pad_w, p->dilation_w, p->s, p->stride_w);
  t.x_count = (size_t)p->n * p->c * p->h * p->w;
  t.w_count = (size_t)p->k * (p->c / p->groups) * p->r * p->s;
  t.y_count = (size_t)p->n * p->k * P * Q;
  char what[256], detail[600];
  snprintf(what, sizeof what, "golden %s %s", g->name,
           layout == BEAST_LAYOUT_NHWC ? "NHWC" : "NCHW");
  if (g->count[0] != t.x_count || g->count[1] != t.w_count || g->count[3] != t.y_count ||
      g->count[2] != (p->bias ? (size_t)p->k : 0)) {
    Report(0, what, "the tensors do not match the shape");
    return;
  }
  const int nhwc = layout == BEAST_LAYOUT_NHWC;
  float* x = nhwc ? ToChannelsLast(g->t[0], p->n, p->c, p->h, p->w) : g->t[0];
  float* w = nhwc ? ToChannelsLast(g->t[1], p->k, p->c / p->groups, p->r, p->s) : g->t[1];
  float* expected = nhwc ? ToChannelsLast(g->t[3], p->n, p->k, P, Q) : g->t[3];
  /* The reference's bound (sum |x w| + |b|) scales the tolerance; its values are
   * not used: ONNX's expected output is the reference here. */
  t.x = x, t.w = w, t.b = p->bias ? g->t[2] : NULL;
  t.ref = (double*)malloc(t.y_count * sizeof(double));
  t.bound = (double*)malloc(t.y_count * sizeof(double));
  ReferenceConv(&t);
  float* y = (float*)malloc(t.y_count * sizeof(float));
  for (size_t i = 0; i < t.y_count; ++i) y[i] = (float)NAN;
  beast_status s = beast_conv2d_forward_host(ctx, p, x, w, t.b, y);
  double worst = 0;
  for (size_t i = 0; s == BEAST_OK && i < t.y_count; ++i) {
    double e = fabs((double)y[i] - (double)expected[i]) / (1.0 + t.bound[i]);
    if (!(e <= worst)) worst = e;
  }
  if (s != BEAST_OK) {
    snprintf(detail, sizeof detail, "status %d: %s", (int)s, beast_last_error());
  } else {
    snprintf(detail, sizeof detail, "max error %.3g of (1 + sum|x w|)", worst);
  }
  Report(s == BEAST_OK && worst <= TOLERANCE, what, detail);
  if (nhwc) free(x), free(w), free(expected);
  free(t.ref), free(t.bound), free(y);
}

void CheckGolden(beast_context* ctx, const char* path) {
  static Golden cases[MAX_CASES];
  char why[512] = "";
  int n = ReadCases(path, cases, why, sizeof why);
  char detail[600];
  if (n < 0)
    snprintf(detail, sizeof detail, "%s", why);
  else
    snprintf(detail, sizeof detail, "%d cases", n);
  Report(n == 17, "golden: read the ONNX Conv cases", detail);
  for (int i = 0; i < n; ++i) {
    RunCase(ctx, &cases[i], BEAST_LAYOUT_NCHW);
    RunCase(ctx, &cases[i], BEAST_LAYOUT_NHWC);
    for (int j = 0; j < 4; ++j) free(cases[i].t[j]);
  }
}
