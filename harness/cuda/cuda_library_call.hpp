// Vendor-library baselines on a CUDA GPU: cuBLAS's SGEMM (cublasGemmEx for
// f64, f16, bf16) and cuDNN's fastest forward convolution (found with cuDNN's
// own search; f32 with FMA math: no TF32; f16/bf16 may use tensor cores),
// prepared once on a problem's device buffers and then run like a kernel,
// timed with CUDA events on the context's stream, so a tuned kernel's
// speed-up over them is measured in the same run. Both libraries are opened
// at run time (libcublas.so.13/12/11, libcudnn.so.9/8): a machine without
// them says so and the baseline is recorded unsupported. The caller
// validates the output against the reference as it does a kernel's.
#pragma once

#include <memory>
#include <string>

#include "beast/core/status.hpp"
#include "beast/problem/problem.hpp"
#include "harness/cuda/cuda_context.hpp"
#include "harness/measure/launch.hpp"

namespace beast::harness {

inline constexpr const char* kCublasRoutine = "cublasSgemm";     // f32
inline constexpr const char* kCublasExRoutine = "cublasGemmEx";  // f64, f16, bf16
// The cuBLAS routine a problem of that dtype is measured with.
inline const char* CublasRoutineFor(beast::DType dtype) {
  return dtype == beast::DType::kF32 ? kCublasRoutine : kCublasExRoutine;
}
inline constexpr const char* kCudnnRoutine = "cudnnConvolutionForward";

// "13.1.0" / "9.10.2"; "" when the library cannot be opened (no GPU needed).
std::string CublasVersion();
std::string CudnnVersion();

// The problem's operands on the device, in beast's layouts (conv2d: x, w,
// bias (unset without one), y; gemm: A, B, C).
struct CudaOperands {
  CudaBuffer input0, input1, bias, output;
};

class CudaLibraryCall {
 public:
  virtual ~CudaLibraryCall() = default;

  // cuBLAS for a gemm problem (row- or column-major, any transposition), as
  // C = A B with beta 0: SGEMM for f32 (default math, no TF32), cublasGemmEx
  // for the others (f64 in FP64; f16 and bf16 with FP32 compute).
  static std::unique_ptr<CudaLibraryCall> Cublas(CudaContext& context,
                                                 const beast::Problem& problem,
                                                 const CudaOperands& operands);
  // cuDNN's forward convolution (cross-correlation, NCHW or NHWC, strides,
  // pads, dilations, groups) in the problem's dtype, the fastest algorithm
  // of cudnnFindConvolutionForwardAlgorithmEx with its workspace (FMA math
  // for f32 and f64; tensor-op math allowed for f16 and bf16, computed in
  // FP32); with a bias, cudnnAddTensor after it, timed together.
  static std::unique_ptr<CudaLibraryCall> Cudnn(CudaContext& context, const beast::Problem& problem,
                                                const CudaOperands& operands);

  // Why the call cannot run: "" when it can. status() is then kUnsupported
  // (the library is missing or cannot compute the problem) or
  // kRuntimeError (it failed while preparing).
  const std::string& why_not() const { return why_not_; }
  Status status() const { return status_; }
  // What was chosen, e.g. "algorithm IMPLICIT_PRECOMP_GEMM, FMA math, 0 bytes of workspace".
  const std::string& detail() const { return detail_; }

  // One call on the context's stream, waited for and timed with events.
  virtual LaunchResult Run() = 0;

 protected:
  std::string why_not_, detail_;
  Status status_ = Status::kOk;
};

}  // namespace beast::harness
