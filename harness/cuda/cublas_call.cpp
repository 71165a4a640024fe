// The cuBLAS baseline on a CUDA context (cuda_library_call.hpp): cuBLAS is
// opened with dlopen, and the few types and enum values its calls take are
// declared here (stable across its versions), so beast needs neither the
// library nor its headers to build.
#include <dlfcn.h>

#include <string>

#include "harness/cuda/cuda_library_call.hpp"
#include "harness/cuda/library_opener.hpp"

namespace beast::harness {
namespace {

// ---- cuBLAS ----------------------------------------------------------------

using CublasHandle = struct cublasContext*;
constexpr int kCublasOpN = 0, kCublasOpT = 1;
constexpr int kCublasDefaultMath = 0;  // no TF32: that needs CUBLAS_TF32_TENSOR_OP_MATH
constexpr int kCublasTf32Math = 3;     // CUBLAS_TF32_TENSOR_OP_MATH: a math=tf32 problem's
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION: without it a 16-bit GEMM
// may reduce split-K partial sums in f16/bf16, not the f32 compute type the
// validation (and the comparison with beast's f32-accumulating kernels) assumes.
constexpr int kCublasNoReducedPrecisionReduction = 16;
// cudaDataType_t and cublasComputeType_t of cublasGemmEx (library_types.h,
// cublas_api.h).
constexpr int kCudaR32F = 0, kCudaR64F = 1, kCudaR16F = 2, kCudaR16BF = 14;
constexpr int kCublasCompute32F = 68, kCublasCompute64F = 70, kCublasGemmDefault = -1;

struct CublasApi {
  int (*Create)(CublasHandle*);
  int (*Destroy)(CublasHandle);
  int (*SetStream)(CublasHandle, void* stream);
  int (*SetMathMode)(CublasHandle, int mode);
  int (*GetVersion)(CublasHandle, int* version);
  int (*Sgemm)(CublasHandle, int transa, int transb, int m, int n, int k, const float* alpha,
               const float* a, int lda, const float* b, int ldb, const float* beta, float* c,
               int ldc);
  const char* (*StatusString)(int status);  // optional (cuBLAS 11.4+)
  int (*GemmEx)(CublasHandle, int transa, int transb, int m, int n, int k, const void* alpha,
                const void* a, int a_type, int lda, const void* b, int b_type, int ldb,
                const void* beta, void* c, int c_type, int ldc, int compute_type, int algo);
};

const CublasApi* LoadCublas() {
  static const CublasApi* loaded = []() -> const CublasApi* {
    void* lib =
        OpenFirstLibrary({"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"});
    if (lib == nullptr) return nullptr;
    static CublasApi c{};
    bool ok = ResolveSymbol(lib, "cublasCreate_v2", &c.Create) &&
              ResolveSymbol(lib, "cublasDestroy_v2", &c.Destroy) &&
              ResolveSymbol(lib, "cublasSetStream_v2", &c.SetStream) &&
              ResolveSymbol(lib, "cublasSetMathMode", &c.SetMathMode) &&
              ResolveSymbol(lib, "cublasGetVersion_v2", &c.GetVersion) &&
              ResolveSymbol(lib, "cublasSgemm_v2", &c.Sgemm) &&
              ResolveSymbol(lib, "cublasGemmEx", &c.GemmEx);
    ResolveSymbol(lib, "cublasGetStatusString", &c.StatusString);
    return ok ? &c : nullptr;
  }();
  return loaded;
}

std::string CublasStatusText(const CublasApi& c, int status) {
  std::string text = "cuBLAS status " + std::to_string(status);
  if (c.StatusString && c.StatusString(status))
    text += std::string(" (") + c.StatusString(status) + ")";
  return text;
}

class CublasCall : public CudaLibraryCall {
 public:
  CublasCall(CudaContext& context, const beast::Problem& problem, const CudaOperands& ops)
      : context_(context) {
    lib_ = LoadCublas();
    if (lib_ == nullptr) {
      status_ = Status::kUnsupported;
      why_not_ = "cuBLAS cannot be opened (libcublas.so.13, .12 or .11 not found)";
      return;
    }
    if (problem.op() != OpKind::kGemm) {
      status_ = Status::kUnsupported;
      why_not_ = "cuBLAS SGEMM computes gemm problems only";
      return;
    }
    context.MakeCurrent();
    int s = lib_->Create(&handle_);
    if (s == 0) s = lib_->SetStream(handle_, context.stream());
    if (s == 0) {
      const bool storage16 = problem.dtype() == DType::kF16 || problem.dtype() == DType::kBF16;
      s = lib_->SetMathMode(handle_, (problem.tf32() ? kCublasTf32Math : kCublasDefaultMath) |
                                         (storage16 ? kCublasNoReducedPrecisionReduction : 0));
    }
    if (s != 0) {
      status_ = Status::kRuntimeError;
      why_not_ = "cuBLAS could not be set up: " + CublasStatusText(*lib_, s);
      return;
    }
    const GemmShape& g = problem.gemm();
    dtype_ = problem.dtype();
    a_ = reinterpret_cast<const void*>(ops.input0.device_ptr());
    b_ = reinterpret_cast<const void*>(ops.input1.device_ptr());
    c_ = reinterpret_cast<void*>(ops.output.device_ptr());
    // Column-major: C (M x N) = op(A) op(B), as BLAS has it. Row-major is
    // the transposed product: C^T (N x M) = op(B)^T op(A)^T, the operands
    // swapped, each stored matrix read with its row length as leading
    // dimension.
    const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
    if (g.col_major) {
      args_ = {g.trans_a ? kCublasOpT : kCublasOpN,
               g.trans_b ? kCublasOpT : kCublasOpN,
               m,
               n,
               k,
               g.trans_a ? k : m,
               g.trans_b ? n : k,
               m,
               false};
    } else {
      args_ = {g.trans_b ? kCublasOpT : kCublasOpN,
               g.trans_a ? kCublasOpT : kCublasOpN,
               n,
               m,
               k,
               g.trans_b ? k : n,
               g.trans_a ? m : k,
               n,
               true};
    }
    int version = 0;
    lib_->GetVersion(handle_, &version);
    detail_ = "cuBLAS " + std::to_string(version) +
              (dtype_ == DType::kF32   ? (problem.tf32() ? ", TF32 tensor-op math (math=tf32)"
                                                         : ", default math (FP32, no TF32)")
               : dtype_ == DType::kF64 ? ", cublasGemmEx in FP64"
                                       : std::string(", cublasGemmEx, ") + DTypeName(dtype_) +
                                             " inputs and output, FP32 compute (tensor cores)");
  }
  ~CublasCall() override {
    if (handle_ != nullptr) lib_->Destroy(handle_);
  }

  LaunchResult Run() override {
    if (!why_not_.empty()) return Failed(why_not_);
    return context_.Timed([&]() -> std::string {
      const float one = 1.0f, zero = 0.0f;
      const double one_d = 1.0, zero_d = 0.0;
      // Row-major: the operands swap (B first).
      const void* first = args_.swapped ? b_ : a_;
      const void* second = args_.swapped ? a_ : b_;
      if (dtype_ == DType::kF32) {
        int s = lib_->Sgemm(handle_, args_.op_first, args_.op_second, args_.m, args_.n, args_.k,
                            &one, static_cast<const float*>(first), args_.ld_first,
                            static_cast<const float*>(second), args_.ld_second, &zero,
                            static_cast<float*>(c_), args_.ldc);
        return s == 0 ? "" : "cublasSgemm failed: " + CublasStatusText(*lib_, s);
      }
      // f16 and bf16 sum in f32 (the problem's convention; alpha and beta
      // are then floats), f64 in f64.
      const bool f64 = dtype_ == DType::kF64;
      const int type = f64 ? kCudaR64F : dtype_ == DType::kF16 ? kCudaR16F : kCudaR16BF;
      int s = lib_->GemmEx(handle_, args_.op_first, args_.op_second, args_.m, args_.n, args_.k,
                           f64 ? static_cast<const void*>(&one_d) : &one, first, type,
                           args_.ld_first, second, type, args_.ld_second,
                           f64 ? static_cast<const void*>(&zero_d) : &zero, c_, type, args_.ldc,
                           f64 ? kCublasCompute64F : kCublasCompute32F, kCublasGemmDefault);
      return s == 0 ? "" : "cublasGemmEx failed: " + CublasStatusText(*lib_, s);
    });
  }

 private:
  static LaunchResult Failed(const std::string& why) {
    LaunchResult r;
    r.message = why;
    return r;
  }
  struct Args {
    int op_first, op_second, m, n, k, ld_first, ld_second, ldc;
    bool swapped;
  };
  CudaContext& context_;
  const CublasApi* lib_ = nullptr;
  CublasHandle handle_ = nullptr;
  DType dtype_ = DType::kF32;
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  void* c_ = nullptr;
  Args args_{};
};

}  // namespace

std::string CublasVersion() {
  const CublasApi* c = LoadCublas();
  if (c == nullptr) return "";
  // cublasGetVersion needs a handle, and a handle a GPU; the library's own
  // file name carries its major version.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(c->Sgemm), &info) && info.dli_fname) {
    std::string file = info.dli_fname;
    size_t so = file.rfind(".so.");
    if (so != std::string::npos) return file.substr(so + 4);
  }
  return "unknown";
}

std::unique_ptr<CudaLibraryCall> CudaLibraryCall::Cublas(CudaContext& context,
                                                         const beast::Problem& problem,
                                                         const CudaOperands& operands) {
  return std::make_unique<CublasCall>(context, problem, operands);
}

}  // namespace beast::harness
