// cuBLAS and cuDNN baselines on a CUDA context (cuda_library_call.hpp). Both
// libraries are opened with dlopen; the few types and enum values their
// calls take are declared here (stable across their versions), so beast
// needs neither library nor its headers to build.
#include "harness/cuda/cuda_library_call.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <vector>

#include "beast/core/error.hpp"

namespace beast::harness {
namespace {

// Where the CUDA toolkit's libraries were at build time, tried after the
// loader's own search path.
#ifdef BEAST_CUDA_LIBRARY_DIR
constexpr const char* kToolkitLibraryDir = BEAST_CUDA_LIBRARY_DIR;
#else
constexpr const char* kToolkitLibraryDir = "";
#endif

void* OpenFirst(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    if (*kToolkitLibraryDir) {
      if (void* h =
              dlopen((std::string(kToolkitLibraryDir) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL))
        return h;
    }
  }
  return nullptr;
}

template <typename Fn>
bool Resolve(void* library, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  return *fn != nullptr;
}

// ---- cuBLAS ----------------------------------------------------------------

using CublasHandle = struct cublasContext*;
constexpr int kCublasOpN = 0, kCublasOpT = 1;
constexpr int kCublasDefaultMath = 0;  // no TF32: that needs CUBLAS_TF32_TENSOR_OP_MATH
constexpr int kCublasTf32Math = 3;     // CUBLAS_TF32_TENSOR_OP_MATH: a math=tf32 problem's
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
        OpenFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"});
    if (lib == nullptr) return nullptr;
    static CublasApi c{};
    bool ok = Resolve(lib, "cublasCreate_v2", &c.Create) &&
              Resolve(lib, "cublasDestroy_v2", &c.Destroy) &&
              Resolve(lib, "cublasSetStream_v2", &c.SetStream) &&
              Resolve(lib, "cublasSetMathMode", &c.SetMathMode) &&
              Resolve(lib, "cublasGetVersion_v2", &c.GetVersion) &&
              Resolve(lib, "cublasSgemm_v2", &c.Sgemm) && Resolve(lib, "cublasGemmEx", &c.GemmEx);
    Resolve(lib, "cublasGetStatusString", &c.StatusString);
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
    if (s == 0)
      s = lib_->SetMathMode(handle_, problem.tf32() ? kCublasTf32Math : kCublasDefaultMath);
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

// ---- cuDNN -----------------------------------------------------------------

using CudnnHandle = struct cudnnContext*;
using TensorDesc = struct cudnnTensorStruct*;
using FilterDesc = struct cudnnFilterStruct*;
using ConvDesc = struct cudnnConvolutionStruct*;
constexpr int kCudnnNchw = 0, kCudnnNhwc = 1, kCudnnFloat = 0, kCudnnCrossCorrelation = 1;
constexpr int kCudnnDouble = 1, kCudnnHalf = 2, kCudnnBfloat16 = 9;
constexpr int kCudnnFmaMath = 3;  // FP32 FMA only: no TF32, no tensor-op conversions
constexpr int kCudnnTensorOpMath = 1, kCudnnTensorOpMathAllowConversion = 2;

// cudnnConvolutionFwdAlgoPerf_t (cuDNN 7 to 9).
struct FwdAlgoPerf {
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

const char* const kFwdAlgoNames[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};

struct CudnnApi {
  size_t (*GetVersion)();
  const char* (*ErrorString)(int status);
  int (*Create)(CudnnHandle*);
  int (*Destroy)(CudnnHandle);
  int (*SetStream)(CudnnHandle, void* stream);
  int (*CreateTensor)(TensorDesc*);
  int (*SetTensor4d)(TensorDesc, int format, int dtype, int n, int c, int h, int w);
  int (*DestroyTensor)(TensorDesc);
  int (*CreateFilter)(FilterDesc*);
  int (*SetFilter4d)(FilterDesc, int dtype, int format, int k, int c, int h, int w);
  int (*DestroyFilter)(FilterDesc);
  int (*CreateConv)(ConvDesc*);
  int (*SetConv2d)(ConvDesc, int pad_h, int pad_w, int u, int v, int dil_h, int dil_w, int mode,
                   int compute);
  int (*SetGroupCount)(ConvDesc, int groups);
  int (*SetMathType)(ConvDesc, int math);
  int (*DestroyConv)(ConvDesc);
  int (*AlgoMaxCount)(CudnnHandle, int* count);
  int (*FindForwardEx)(CudnnHandle, TensorDesc, const void* x, FilterDesc, const void* w, ConvDesc,
                       TensorDesc, void* y, int requested, int* returned, FwdAlgoPerf* results,
                       void* workspace, size_t workspace_bytes);
  int (*Forward)(CudnnHandle, const void* alpha, TensorDesc, const void* x, FilterDesc,
                 const void* w, ConvDesc, int algo, void* workspace, size_t workspace_bytes,
                 const void* beta, TensorDesc, void* y);
  int (*AddTensor)(CudnnHandle, const void* alpha, TensorDesc, const void* b, const void* beta,
                   TensorDesc, void* y);
};

const CudnnApi* LoadCudnn() {
  static const CudnnApi* loaded = []() -> const CudnnApi* {
    void* lib = OpenFirst({"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"});
    if (lib == nullptr) return nullptr;
    static CudnnApi c{};
    bool ok = Resolve(lib, "cudnnGetVersion", &c.GetVersion) &&
              Resolve(lib, "cudnnGetErrorString", &c.ErrorString) &&
              Resolve(lib, "cudnnCreate", &c.Create) && Resolve(lib, "cudnnDestroy", &c.Destroy) &&
              Resolve(lib, "cudnnSetStream", &c.SetStream) &&
              Resolve(lib, "cudnnCreateTensorDescriptor", &c.CreateTensor) &&
              Resolve(lib, "cudnnSetTensor4dDescriptor", &c.SetTensor4d) &&
              Resolve(lib, "cudnnDestroyTensorDescriptor", &c.DestroyTensor) &&
              Resolve(lib, "cudnnCreateFilterDescriptor", &c.CreateFilter) &&
              Resolve(lib, "cudnnSetFilter4dDescriptor", &c.SetFilter4d) &&
              Resolve(lib, "cudnnDestroyFilterDescriptor", &c.DestroyFilter) &&
              Resolve(lib, "cudnnCreateConvolutionDescriptor", &c.CreateConv) &&
              Resolve(lib, "cudnnSetConvolution2dDescriptor", &c.SetConv2d) &&
              Resolve(lib, "cudnnSetConvolutionGroupCount", &c.SetGroupCount) &&
              Resolve(lib, "cudnnSetConvolutionMathType", &c.SetMathType) &&
              Resolve(lib, "cudnnDestroyConvolutionDescriptor", &c.DestroyConv) &&
              Resolve(lib, "cudnnGetConvolutionForwardAlgorithmMaxCount", &c.AlgoMaxCount) &&
              Resolve(lib, "cudnnFindConvolutionForwardAlgorithmEx", &c.FindForwardEx) &&
              Resolve(lib, "cudnnConvolutionForward", &c.Forward) &&
              Resolve(lib, "cudnnAddTensor", &c.AddTensor);
    return ok ? &c : nullptr;
  }();
  return loaded;
}

class CudnnCall : public CudaLibraryCall {
 public:
  CudnnCall(CudaContext& context, const beast::Problem& problem, const CudaOperands& ops)
      : context_(context), ops_(ops) {
    lib_ = LoadCudnn();
    if (lib_ == nullptr) {
      status_ = Status::kUnsupported;
      why_not_ = "cuDNN cannot be opened (libcudnn.so.9 or .8 not found)";
      return;
    }
    if (problem.op() != OpKind::kConv2d) {
      status_ = Status::kUnsupported;
      why_not_ = "cuDNN's forward convolution computes conv2d problems only";
      return;
    }
    context.MakeCurrent();
    const Conv2dShape& s = problem.conv();
    const int format = s.layout == Layout::kNHWC ? kCudnnNhwc : kCudnnNchw;
    // The tensors in the problem's dtype; f16 and bf16 computed in float
    // (cuDNN's pseudo-half configuration, the problem's convention) with
    // tensor cores allowed (their algorithms are what a DL user compares
    // against); f32 FMA only (no TF32), f64 in double.
    dtype_ = problem.dtype();
    const int data = dtype_ == DType::kF64    ? kCudnnDouble
                     : dtype_ == DType::kF16  ? kCudnnHalf
                     : dtype_ == DType::kBF16 ? kCudnnBfloat16
                                              : kCudnnFloat;
    const int compute = dtype_ == DType::kF64 ? kCudnnDouble : kCudnnFloat;
    tensor_ops_ = dtype_ == DType::kF16 || dtype_ == DType::kBF16 || problem.tf32();
    auto step = [&](int status, const char* what) {
      if (status != 0 && why_not_.empty()) {
        status_ = Status::kRuntimeError;
        why_not_ = std::string(what) + " failed: " + lib_->ErrorString(status);
      }
      return why_not_.empty();
    };
    step(lib_->Create(&handle_), "cudnnCreate") &&
        step(lib_->SetStream(handle_, context.stream()), "cudnnSetStream") &&
        step(lib_->CreateTensor(&x_), "cudnnCreateTensorDescriptor") &&
        step(lib_->CreateTensor(&y_), "cudnnCreateTensorDescriptor") &&
        step(lib_->CreateFilter(&w_), "cudnnCreateFilterDescriptor") &&
        step(lib_->CreateConv(&conv_), "cudnnCreateConvolutionDescriptor") &&
        step(lib_->SetTensor4d(x_, format, data, I(s.n), I(s.c), I(s.h), I(s.w)),
             "cudnnSetTensor4dDescriptor (x)") &&
        step(lib_->SetTensor4d(y_, format, data, I(s.n), I(s.k), I(s.OutH()), I(s.OutW())),
             "cudnnSetTensor4dDescriptor (y)") &&
        step(lib_->SetFilter4d(w_, data, format, I(s.k), I(s.c / s.groups), I(s.r), I(s.s)),
             "cudnnSetFilter4dDescriptor") &&
        step(lib_->SetConv2d(conv_, I(s.pad_h), I(s.pad_w), I(s.stride_h), I(s.stride_w),
                             I(s.dilation_h), I(s.dilation_w), kCudnnCrossCorrelation, compute),
             "cudnnSetConvolution2dDescriptor") &&
        step(lib_->SetGroupCount(conv_, I(s.groups)), "cudnnSetConvolutionGroupCount") &&
        step(lib_->SetMathType(conv_, tensor_ops_ ? kCudnnTensorOpMath : kCudnnFmaMath),
             "cudnnSetConvolutionMathType");
    if (!why_not_.empty()) return;
    if (s.bias) {
      step(lib_->CreateTensor(&b_), "cudnnCreateTensorDescriptor") &&
          step(lib_->SetTensor4d(b_, format, data, 1, I(s.k), 1, 1),
               "cudnnSetTensor4dDescriptor (bias)");
      if (!why_not_.empty()) return;
    }
    FindAlgorithm();
  }

  ~CudnnCall() override {
    if (lib_ == nullptr) return;
    if (conv_) lib_->DestroyConv(conv_);
    if (w_) lib_->DestroyFilter(w_);
    for (TensorDesc t : {x_, y_, b_})
      if (t) lib_->DestroyTensor(t);
    if (handle_) lib_->Destroy(handle_);
  }

  LaunchResult Run() override {
    if (!why_not_.empty()) {
      LaunchResult r;
      r.message = why_not_;
      return r;
    }
    return context_.Timed([&]() -> std::string {
      // Scaling factors are doubles for double data, floats otherwise.
      const float one_f = 1.0f, zero_f = 0.0f;
      const double one_d = 1.0, zero_d = 0.0;
      const bool f64 = dtype_ == DType::kF64;
      const void* one = f64 ? static_cast<const void*>(&one_d) : &one_f;
      const void* zero = f64 ? static_cast<const void*>(&zero_d) : &zero_f;
      int s = lib_->Forward(handle_, one, x_, Ptr(ops_.input0), w_, Ptr(ops_.input1), conv_, algo_,
                            Ptr(workspace_), workspace_.bytes(), zero, y_, Ptr(ops_.output));
      if (s != 0) return std::string("cudnnConvolutionForward failed: ") + lib_->ErrorString(s);
      if (b_ != nullptr) {
        s = lib_->AddTensor(handle_, one, b_, Ptr(ops_.bias), one, y_, Ptr(ops_.output));
        if (s != 0) return std::string("cudnnAddTensor failed: ") + lib_->ErrorString(s);
      }
      return "";
    });
  }

 private:
  static void* Ptr(const CudaBuffer& b) { return reinterpret_cast<void*>(b.device_ptr()); }
  static int I(int64_t v) { return static_cast<int>(v); }

  // cuDNN's own search: it runs every algorithm that FMA math allows on the
  // real buffers (with a workspace as large as the device can spare) and
  // returns them fastest first; the first that succeeded is used.
  // An allocation the device refuses (its memory is full) is a runtime
  // error of this baseline, not a lost device.
  void FindAlgorithm() {
    try {
      Search();
    } catch (const Error& e) {
      status_ = Status::kRuntimeError;
      why_not_ = e.what();
    }
  }

  void Search() {
    int most = 0;
    lib_->AlgoMaxCount(handle_, &most);
    std::vector<FwdAlgoPerf> perf(static_cast<size_t>(std::max(most, 8)));
    // A workspace for the search: 256 MiB is more than any FMA algorithm of
    // these problems asks; the chosen one's own size is allocated after.
    CudaBuffer search = context_.Allocate(size_t{256} << 20);
    int returned = 0;
    int s = lib_->FindForwardEx(handle_, x_, Ptr(ops_.input0), w_, Ptr(ops_.input1), conv_, y_,
                                Ptr(ops_.output), static_cast<int>(perf.size()), &returned,
                                perf.data(), Ptr(search), search.bytes());
    if (s != 0) {
      status_ = Status::kRuntimeError;
      why_not_ =
          std::string("cudnnFindConvolutionForwardAlgorithmEx failed: ") + lib_->ErrorString(s);
      return;
    }
    for (int i = 0; i < returned; ++i) {
      // f32 (exact) and f64: FMA math only, no tensor-op (TF32) algorithm whatever
      // cuDNN reports as the math of the others; f16, bf16 and math=tf32: any.
      if (perf[i].status != 0 ||
          (!tensor_ops_ && (perf[i].math_type == kCudnnTensorOpMath ||
                            perf[i].math_type == kCudnnTensorOpMathAllowConversion)))
        continue;
      algo_ = perf[i].algo;
      if (perf[i].memory > 0) workspace_ = context_.Allocate(perf[i].memory);
      const char* name = algo_ >= 0 && algo_ < 8 ? kFwdAlgoNames[algo_] : "?";
      detail_ = "cuDNN " + std::to_string(lib_->GetVersion()) + ", algorithm " + name +
                " (fastest of " + std::to_string(returned) + " by cuDNN's search), " + MathText() +
                ", " + std::to_string(perf[i].memory) + " bytes of workspace";
      return;
    }
    status_ = Status::kUnsupported;
    why_not_ = "cuDNN found no " + std::string(tensor_ops_ ? "" : "FMA-math ") +
               "forward algorithm for this convolution";
  }

  std::string MathText() const {
    if (dtype_ == DType::kF64) return "FP64 FMA math";
    if (tensor_ops_ && dtype_ == DType::kF32) return "FP32 data, TF32 tensor-op math allowed";
    if (tensor_ops_)
      return std::string(DTypeName(dtype_)) + " data, FP32 compute, tensor-op math allowed";
    return "FMA math (FP32, no TF32)";
  }

  CudaContext& context_;
  CudaOperands ops_;
  const CudnnApi* lib_ = nullptr;
  CudnnHandle handle_ = nullptr;
  TensorDesc x_ = nullptr, y_ = nullptr, b_ = nullptr;
  FilterDesc w_ = nullptr;
  ConvDesc conv_ = nullptr;
  DType dtype_ = DType::kF32;
  bool tensor_ops_ = false;  // f16 / bf16: tensor-core algorithms allowed
  int algo_ = 0;
  CudaBuffer workspace_;
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

std::string CudnnVersion() {
  const CudnnApi* c = LoadCudnn();
  if (c == nullptr) return "";
  size_t v = c->GetVersion();  // major * 10000 + minor * 100 + patch since cuDNN 9
  if (v >= 90000)
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
  return std::to_string(v / 1000) + "." + std::to_string(v / 100 % 10) + "." +
         std::to_string(v % 100);
}

std::unique_ptr<CudaLibraryCall> CudaLibraryCall::Cublas(CudaContext& context,
                                                         const beast::Problem& problem,
                                                         const CudaOperands& operands) {
  return std::make_unique<CublasCall>(context, problem, operands);
}

std::unique_ptr<CudaLibraryCall> CudaLibraryCall::Cudnn(CudaContext& context,
                                                        const beast::Problem& problem,
                                                        const CudaOperands& operands) {
  return std::make_unique<CudnnCall>(context, problem, operands);
}

}  // namespace beast::harness
