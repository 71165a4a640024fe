/* main.c of the transient consumer: the exported library must tell a build
 * that fails for want of memory from one that fails for its source. This
 * program defines clBuildProgram and clCreateKernel itself, so the library's
 * calls come here first; each passes on to the real OpenCL one (found with
 * dlsym(RTLD_NEXT)) unless the check ahead of it asked for a failure, which
 * is then CL_OUT_OF_HOST_MEMORY, as a driver out of memory returns it. Each
 * such failure must fail its call with BEAST_ERROR_DEVICE and retire
 * nothing: the next call of the same shape builds again, runs the tuned
 * kernel (or the generic one) and is right, and beast_explain passes
 * nothing over. Prints "ok"/"FAIL" lines; exit 1 on any FAIL. The tuned
 * problems are export_fixture.hpp's kTunedProblems[1] and [3]; the program
 * cache is off (BEAST_TUNED_CACHE_DIR=), so every first call builds. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <CL/cl.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer.h"

static int builds_to_fail = 0;  /* the next clBuildProgram calls to fail */
static int kernels_to_fail = 0; /* the next clCreateKernel calls to fail */
static int builds = 0;          /* clBuildProgram calls that reached OpenCL */

typedef cl_int (*BuildFn)(cl_program, cl_uint, const cl_device_id*, const char*,
                          void(CL_CALLBACK*)(cl_program, void*), void*);
typedef cl_kernel (*CreateKernelFn)(cl_program, const char*, cl_int*);

cl_int clBuildProgram(cl_program program, cl_uint n_devices, const cl_device_id* devices,
                      const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                      void* data) {
  if (builds_to_fail > 0) {
    --builds_to_fail;
    return CL_OUT_OF_HOST_MEMORY;
  }
  ++builds;
  BuildFn real = (BuildFn)dlsym(RTLD_NEXT, "clBuildProgram");
  return real(program, n_devices, devices, options, notify, data);
}

cl_kernel clCreateKernel(cl_program program, const char* name, cl_int* err) {
  if (kernels_to_fail > 0) {
    --kernels_to_fail;
    if (err) *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  CreateKernelFn real = (CreateKernelFn)dlsym(RTLD_NEXT, "clCreateKernel");
  return real(program, name, err);
}

/* Runs p (a gemm when is_gemm, else conv) once on seeded inputs; "" when the
 * status is `want` and, for BEAST_OK, the output is right; else what is not. */
static void Call(beast_context* ctx, int is_gemm, const beast_gemm_problem* gemm,
                 const beast_conv2d_problem* conv, beast_status want, char* out, size_t len) {
  beast_status status;
  double worst;
  if (is_gemm) {
    GemmCase t = MakeGemmCase(*gemm, 7);
    float* c = (float*)malloc(t.c_count * sizeof(float));
    for (size_t i = 0; i < t.c_count; ++i) c[i] = NAN;
    status = beast_gemm_host(ctx, gemm, t.a, t.b, c);
    worst = MaxRelativeError(c, t.ref, t.bound, t.c_count);
    free(c);
    FreeGemmCase(&t);
  } else {
    ConvCase t = MakeConvCase(*conv, 7);
    float* y = (float*)malloc(t.y_count * sizeof(float));
    for (size_t i = 0; i < t.y_count; ++i) y[i] = NAN;
    status = beast_conv2d_forward_host(ctx, conv, t.x, t.w, t.b, y);
    worst = MaxRelativeError(y, t.ref, t.bound, t.y_count);
    free(y);
    FreeConvCase(&t);
  }
  out[0] = '\0';
  if (status != want) {
    snprintf(out, len, "status %d, %d expected: %s", (int)status, (int)want, beast_last_error());
  } else if (want != BEAST_OK && !strstr(beast_last_error(), "(error -6)")) {
    snprintf(out, len, "the error does not name CL_OUT_OF_HOST_MEMORY: %s", beast_last_error());
  } else if (want == BEAST_OK && !(worst <= TOLERANCE)) {
    snprintf(out, len, "max relative error %g", worst);
  }
}

/* One shape through a transient failure: the first call fails (DEVICE),
 * the second is right, and beast_explain holds `served` and no pass-over. */
static void Check(beast_context* ctx, const char* name, int fail_builds, int fail_kernels,
                  int is_gemm, const beast_gemm_problem* gemm, const beast_conv2d_problem* conv,
                  const char* served) {
  char what[256], detail[1200];
  builds_to_fail = fail_builds;
  kernels_to_fail = fail_kernels;
  Call(ctx, is_gemm, gemm, conv, BEAST_ERROR_DEVICE, detail, sizeof detail);
  snprintf(what, sizeof what, "%s: the call that ran out of memory fails with DEVICE", name);
  Report(detail[0] == '\0', what, detail);
  snprintf(what, sizeof what, "%s: every failure asked for was met", name);
  Report(builds_to_fail == 0 && kernels_to_fail == 0, what, "");
  builds_to_fail = kernels_to_fail = 0;
  const int before = builds;
  Call(ctx, is_gemm, gemm, conv, BEAST_OK, detail, sizeof detail);
  snprintf(what, sizeof what, "%s: the next call is served and right", name);
  Report(detail[0] == '\0', what, detail);
  char built[64];
  snprintf(built, sizeof built, "%d builds", builds - before);
  snprintf(what, sizeof what, "%s: the next call built its program once", name);
  Report(builds - before == (fail_builds ? 1 : 0), what, built);
  char text[1200];
  beast_status s = is_gemm ? beast_explain_gemm(ctx, gemm, text, sizeof text)
                           : beast_explain_conv2d(ctx, conv, text, sizeof text);
  snprintf(what, sizeof what, "%s: explain names what served it and passes nothing over", name);
  Report(s == BEAST_OK && strstr(text, served) && !strstr(text, "passed over") &&
             !strstr(text, "failed"),
         what, s == BEAST_OK ? text : beast_last_error());
}

int main(void) {
  beast_context* ctx = NULL;
  if (beast_context_create(BEAST_BACKEND_OPENCL, 0, &ctx) != BEAST_OK) {
    Report(0, "beast_context_create", beast_last_error());
    return 1;
  }
  /* kTunedProblems[1], kTunedProblems[3], and a shape nobody tuned. */
  const beast_gemm_problem tuned_gemm = {33, 17, 29, 1, 1, BEAST_DTYPE_F32, 0};
  const beast_conv2d_problem tuned_conv = {
      1, 3, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0};
  const beast_gemm_problem untuned_gemm = {20, 20, 20, 0, 0, BEAST_DTYPE_F32, 0};
  Check(ctx, "tuned gemm, build", 1, 0, 1, &tuned_gemm, NULL, "exact tuned");
  Check(ctx, "tuned conv2d, kernel", 0, 1, 0, NULL, &tuned_conv, "exact tuned");
  Check(ctx, "generic gemm, build", 1, 0, 1, &untuned_gemm, NULL, "-> generic kernel");
  Check(ctx, "generic gemm, kernel", 0, 1, 1, &untuned_gemm, NULL, "-> generic kernel");
  beast_context_destroy(ctx);
  return failures ? 1 : 0;
}
