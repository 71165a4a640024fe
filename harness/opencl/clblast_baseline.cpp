// CLBlast baselines (clblast_baseline.hpp): one CLBlast call per problem,
// validated and timed exactly like a beast kernel.
#include "harness/opencl/clblast_baseline.hpp"

#include <chrono>
#include <cstdio>
#include <functional>

#include "harness/measure/validation.hpp"

#ifdef BEAST_HAVE_CLBLAST
#include <clblast_c.h>

#include "harness/opencl/opencl_errors.hpp"
#include "harness/opencl/opencl_handles.hpp"
#endif

namespace beast::harness {

bool ClblastAvailable() {
#ifdef BEAST_HAVE_CLBLAST
  return true;
#else
  return false;
#endif
}

std::string ClblastVersion() {
#ifdef BEAST_HAVE_CLBLAST
  return std::to_string(CLBLAST_VERSION_MAJOR) + "." + std::to_string(CLBLAST_VERSION_MINOR) + "." +
         std::to_string(CLBLAST_VERSION_PATCH);
#else
  return "";
#endif
}

std::string ClblastRoutine(const beast::Problem& problem, std::string* why_not) {
  std::string why;
  std::string routine;
  // CLBlast's precision prefix: S and D; its H routines compute in half,
  // and it has no bf16 ones (X is its own name for "any precision").
  const beast::DType dtype = problem.dtype();
  const char* prefix = dtype == beast::DType::kF32   ? "S"
                       : dtype == beast::DType::kF64 ? "D"
                       : dtype == beast::DType::kF16 ? "H"
                                                     : "X";
  if (problem.op() == beast::OpKind::kGemm) {
    routine = std::string(prefix) + "gemm";
  } else {
    // (f32's keeps the name databases have recorded it under: "Convgemm")
    routine = dtype == beast::DType::kF32 ? "Convgemm" : std::string(prefix) + "convgemm";
    const beast::Conv2dShape& s = problem.conv();
    // Convgemm's signature has no groups (a grouped problem is one call per
    // image and group) and no bias, and its image is NCHW.
    if (s.layout != beast::Layout::kNCHW) {
      why = "CLBlast's Convgemm takes NCHW images only";
    } else if (s.bias) {
      why = "CLBlast's Convgemm adds no bias";
    }
  }
  if (dtype == beast::DType::kF16) {
    why =
        "CLBlast's half-precision routines accumulate in f16, not in the f32 that beast's f16 "
        "problems are checked against";
  } else if (dtype == beast::DType::kBF16) {
    why = "CLBlast has no bf16 routines";
  }
  if (why.empty() && !ClblastAvailable()) why = "this beast was built without CLBlast";
  if (why_not) *why_not = why;
  return routine;
}

#ifdef BEAST_HAVE_CLBLAST
namespace {

const char* ClblastStatusName(int code) {
  switch (code) {
    case CLBlastNotImplemented:
      return "CLBlastNotImplemented";
    case CLBlastInvalidMatrixA:
      return "CLBlastInvalidMatrixA";
    case CLBlastInvalidMatrixB:
      return "CLBlastInvalidMatrixB";
    case CLBlastInvalidMatrixC:
      return "CLBlastInvalidMatrixC";
    case CLBlastInvalidDimension:
      return "CLBlastInvalidDimension";
    case CLBlastInvalidLeadDimA:
      return "CLBlastInvalidLeadDimA";
    case CLBlastInvalidLeadDimB:
      return "CLBlastInvalidLeadDimB";
    case CLBlastInvalidLeadDimC:
      return "CLBlastInvalidLeadDimC";
    case CLBlastInsufficientMemoryA:
      return "CLBlastInsufficientMemoryA";
    case CLBlastInsufficientMemoryB:
      return "CLBlastInsufficientMemoryB";
    case CLBlastInsufficientMemoryC:
      return "CLBlastInsufficientMemoryC";
    case CLBlastInsufficientMemoryTemp:
      return "CLBlastInsufficientMemoryTemp";
    case CLBlastInvalidBatchCount:
      return "CLBlastInvalidBatchCount";
    case CLBlastInvalidLocalMemUsage:
      return "CLBlastInvalidLocalMemUsage";
    case CLBlastDatabaseError:
      return "CLBlastDatabaseError";
    case CLBlastUnknownError:
      return "CLBlastUnknownError";
    case CLBlastUnexpectedError:
      return "CLBlastUnexpectedError";
    default:
      return nullptr;
  }
}

// CLBlast returns OpenCL codes where they apply and its own beyond them.
std::string ClblastStatusText(int code) {
  if (const char* name = ClblastStatusName(code)) {
    return std::string(name) + " (" + std::to_string(code) + ")";
  }
  return OpenClErrorText(code);
}

// One call of the routine on the problem's operands, its last command's
// event in *done.
using Call = std::function<CLBlastStatusCode(cl_command_queue*, cl_event*)>;

Call MakeCall(const beast::Problem& problem, const BaselineOperands& ops) {
  cl_mem in0 = ops.input0.impl()->mem, in1 = ops.input1.impl()->mem, out = ops.output.impl()->mem;
  const bool f64 = problem.dtype() == beast::DType::kF64;
  if (problem.op() == beast::OpKind::kGemm) {
    const beast::GemmShape g = problem.gemm();
    // beast's storage: A is M x K (stored K x M when trans_a), B is K x N
    // (stored N x K when trans_b), C is M x N, all row-major or all
    // column-major; a leading dimension is the stored matrix's row length
    // (row-major) or column length (column-major).
    const size_t a_rows = g.trans_a ? g.k : g.m, a_cols = g.trans_a ? g.m : g.k;
    const size_t b_rows = g.trans_b ? g.n : g.k, b_cols = g.trans_b ? g.k : g.n;
    const size_t lda = g.col_major ? a_rows : a_cols;
    const size_t ldb = g.col_major ? b_rows : b_cols;
    const size_t ldc = g.col_major ? g.m : g.n;
    const CLBlastLayout layout = g.col_major ? CLBlastLayoutColMajor : CLBlastLayoutRowMajor;
    const CLBlastTranspose ta = g.trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastTranspose tb = g.trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
    return [=](cl_command_queue* queue, cl_event* done) {
      if (f64) {
        return CLBlastDgemm(layout, ta, tb, g.m, g.n, g.k, 1.0, in0, 0, lda, in1, 0, ldb, 0.0, out,
                            0, ldc, queue, done);
      }
      return CLBlastSgemm(layout, ta, tb, g.m, g.n, g.k, 1.0f, in0, 0, lda, in1, 0, ldb, 0.0f, out,
                          0, ldc, queue, done);
    };
  }
  const beast::Conv2dShape s = problem.conv();
  // Cross-correlation is what beast (like cuDNN and ONNX) calls convolution.
  // One Convgemm of the precision on channels of images at offsets.
  auto convgemm = [f64](const beast::Conv2dShape& s, size_t channels, size_t filters, size_t images,
                        cl_mem x, size_t x_offset, cl_mem w, size_t w_offset, cl_mem y,
                        size_t y_offset, cl_command_queue* queue, cl_event* done) {
    auto* routine = f64 ? CLBlastDconvgemm : CLBlastSconvgemm;
    return routine(CLBlastKernelModeCrossCorrelation, channels, s.h, s.w, s.r, s.s, s.pad_h,
                   s.pad_w, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w, filters, images, x,
                   x_offset, w, w_offset, y, y_offset, queue, done);
  };
  if (s.groups == 1) {
    return [=](cl_command_queue* queue, cl_event* done) {
      return convgemm(s, s.c, s.k, s.n, in0, 0, in1, 0, out, 0, queue, done);
    };
  }
  // Groups: Convgemm's batch stride is its own channels' image, so a group's
  // channels of every image are not one batch: one call per image and group,
  // on offsets into x (C/groups channels), w (K/groups filters) and y.
  return [=](cl_command_queue* queue, cl_event* done) {
    const size_t cg = static_cast<size_t>(s.c / s.groups), kg = static_cast<size_t>(s.k / s.groups);
    const size_t hw = static_cast<size_t>(s.h * s.w), pq = static_cast<size_t>(s.OutH() * s.OutW());
    CLBlastStatusCode code = CLBlastSuccess;
    for (int64_t n = 0; n < s.n && code == CLBlastSuccess; ++n) {
      for (int64_t g = 0; g < s.groups && code == CLBlastSuccess; ++g) {
        if (*done) clReleaseEvent(*done);  // only the last command's event is kept
        *done = nullptr;
        const size_t image = static_cast<size_t>(n) * s.groups + g;
        code = convgemm(s, cg, kg, 1, in0, image * cg * hw, in1,
                        static_cast<size_t>(g) * kg * cg * s.r * s.s, out, image * kg * pq, queue,
                        done);
      }
    }
    return code;
  };
}

cl_ulong ProfilingTime(cl_event event, cl_profiling_info what, cl_int* status) {
  cl_ulong t = 0;
  if (*status == CL_SUCCESS) *status = clGetEventProfilingInfo(event, what, sizeof t, &t, nullptr);
  return t;
}

struct Timed {
  std::string error;   // empty when the call succeeded
  bool build = false;  // the error is CLBlast failing to build its kernels
  double span_ms = 0;
  double last_ms = 0;
};

// One call, timed from a marker enqueued just before it to the end of the
// event CLBlast returns.
Timed TimedCall(cl_command_queue queue, const Call& call) {
  Timed t;
  cl_int status = clFinish(queue);  // nothing else in the span
  cl_event marker = nullptr, done = nullptr;
  if (status == CL_SUCCESS) status = clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker);
  if (status != CL_SUCCESS) {
    t.error = "cannot enqueue a timing marker: " + OpenClErrorText(status);
    return t;
  }
  CLBlastStatusCode code = call(&queue, &done);
  if (code != CLBlastSuccess) {
    clReleaseEvent(marker);
    if (done) clReleaseEvent(done);
    t.build = code == CLBlastOpenCLBuildProgramFailure;
    t.error = "CLBlast returned " + ClblastStatusText(code);
    return t;
  }
  status = done ? clWaitForEvents(1, &done) : CL_INVALID_EVENT;
  cl_int execution = CL_COMPLETE;
  if (status == CL_SUCCESS) {
    status = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution,
                            nullptr);
  }
  if (status != CL_SUCCESS || execution < 0) {
    t.error = "CLBlast's last command failed while running: " +
              OpenClErrorText(status != CL_SUCCESS ? status : execution);
  } else {
    cl_ulong begin = ProfilingTime(marker, CL_PROFILING_COMMAND_START, &status);
    cl_ulong last_start = ProfilingTime(done, CL_PROFILING_COMMAND_START, &status);
    cl_ulong end = ProfilingTime(done, CL_PROFILING_COMMAND_END, &status);
    if (status != CL_SUCCESS) {
      t.error = "no profiling time for CLBlast's call: " + OpenClErrorText(status);
    } else {
      t.span_ms = end > begin ? static_cast<double>(end - begin) * 1e-6 : 0.0;
      t.last_ms = end > last_start ? static_cast<double>(end - last_start) * 1e-6 : 0.0;
    }
  }
  clReleaseEvent(marker);
  if (done) clReleaseEvent(done);
  return t;
}

// Reads CLBlast's output as T (the problem's element type) and checks it
// against the reference of that precision; false, with the status and the
// wrong element in *out, when it fails.
template <typename T>
bool ValidateOutput(OpenClContext& context, const BaselineOperands& ops, const T* reference,
                    const T* abs_reference, BaselineResult* out) {
  std::vector<T> y(ops.output_count);
  context.Read(ops.output, y.data(), y.size() * sizeof(T));
  ValidationResult v = Validate(y.data(), reference, abs_reference, y.size(), ops.reduction_length);
  out->max_error = v.max_error;
  if (v.ok) return true;
  out->status = Status::kWrongResult;
  out->error_text = DescribeWrongResult(v, y.data(), reference, y.size());
  return false;
}

}  // namespace
#endif  // BEAST_HAVE_CLBLAST

BaselineResult MeasureClblast(OpenClContext& context, const beast::Problem& problem,
                              const BaselineOperands& ops, const BenchmarkPlan& plan) {
  BaselineResult out;
  std::string why_not;
  out.routine = ClblastRoutine(problem, &why_not);
  if (!why_not.empty()) {
    out.status = Status::kUnsupported;
    out.error_text = why_not;
    return out;
  }
#ifndef BEAST_HAVE_CLBLAST
  (void)context;
  (void)ops;
  (void)plan;
  return out;  // unreachable: ClblastRoutine says why not without CLBlast
#else
  cl_command_queue queue = context.impl().queue;
  Call call = MakeCall(problem, ops);
  // Poison the output (0xFF bytes are NaN) so an element CLBlast never
  // writes fails validation; beta = 0 tells CLBlast to ignore what is there.
  context.Fill(ops.output, 0xFF);
  auto first_start = std::chrono::steady_clock::now();
  Timed first = TimedCall(queue, call);
  out.first_call_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_start)
          .count();
  if (!first.error.empty()) {
    out.status = first.build ? Status::kCompileError : Status::kRuntimeError;
    out.error_text = first.error;
    return out;
  }
  const bool valid = problem.dtype() == beast::DType::kF64
                         ? ValidateOutput(context, ops, ops.reference64, ops.abs_reference64, &out)
                         : ValidateOutput(context, ops, ops.reference, ops.abs_reference, &out);
  if (!valid) return out;
  std::string failure;
  std::vector<double> last_ms;
  out.samples_ms = Benchmark(
      [&]() -> std::optional<double> {
        if (plan.flush_cache) context.FlushCache();  // TimedCall's clFinish waits for it
        Timed t = TimedCall(queue, call);
        if (!t.error.empty()) {
          failure = t.error;
          return std::nullopt;
        }
        last_ms.push_back(t.last_ms);
        return t.span_ms;
      },
      plan, nullptr);
  if (!failure.empty()) {
    out.status = Status::kRuntimeError;
    out.error_text = failure;
    return out;
  }
  SampleStats stats = Summarize(out.samples_ms);
  out.median_ms = stats.median;
  out.spread = stats.spread;
  // The warm-up calls are in last_ms too: keep the timed ones only.
  last_ms.erase(last_ms.begin(), last_ms.end() - static_cast<long>(out.samples_ms.size()));
  out.last_command_median_ms = Summarize(last_ms).median;
  return out;
#endif
}

}  // namespace beast::harness
