/* beast_generic.c: the fallback for shapes nobody tuned on an OpenCL device:
 * the program of beast_generic_source (beast_generic.cl, put into
 * beast_kernels.c by the exporter), one plain kernel per op that takes the
 * whole shape as run-time arguments — slow, but correct for every problem the
 * API accepts, so an untuned shape still gets its answer (and beast_explain
 * says that the generic kernel runs). Tuned kernels bake their shape in and
 * cannot serve another one. */
#include "beast_runtime.h"

beast_status beast_generic_program(beast_context* ctx, cl_program* program) {
  beast_status status = BEAST_OK;
  pthread_mutex_lock(&ctx->mutex);
  if (ctx->generic_failed) {
    status = beast_fail(BEAST_ERROR_BUILD, "the generic fallback kernels failed to build on %s",
                        ctx->device_name);
  } else if (!ctx->generic_program) {
    char line[512];
    cl_int err = beast_build_program(ctx, beast_generic_source, "", &ctx->generic_program, line,
                                     sizeof line);
    if (err != CL_SUCCESS) {
      status = beast_fail(beast_build_failure(err),
                          "the generic fallback kernels do not build on %s (error %d): %s",
                          ctx->device_name, (int)err, line);
      /* Out of memory is no verdict on the source: the next call builds again. */
      ctx->generic_failed = status == BEAST_ERROR_BUILD;
    }
  }
  *program = ctx->generic_program;
  pthread_mutex_unlock(&ctx->mutex);
  return status;
}
