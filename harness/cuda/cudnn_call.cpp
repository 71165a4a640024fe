// The cuDNN baseline on a CUDA context (cuda_library_call.hpp): cuDNN is
// opened with dlopen, and the few types and enum values its calls take are
// declared here (stable across its versions), so beast needs neither the
// library nor its headers to build.
#include <algorithm>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/cuda/cuda_library_call.hpp"
#include "harness/cuda/library_opener.hpp"

namespace beast::harness {
namespace {

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
    void* lib = OpenFirstLibrary({"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"});
    if (lib == nullptr) return nullptr;
    static CudnnApi c{};
    bool ok = ResolveSymbol(lib, "cudnnGetVersion", &c.GetVersion) &&
              ResolveSymbol(lib, "cudnnGetErrorString", &c.ErrorString) &&
              ResolveSymbol(lib, "cudnnCreate", &c.Create) &&
              ResolveSymbol(lib, "cudnnDestroy", &c.Destroy) &&
              ResolveSymbol(lib, "cudnnSetStream", &c.SetStream) &&
              ResolveSymbol(lib, "cudnnCreateTensorDescriptor", &c.CreateTensor) &&
              ResolveSymbol(lib, "cudnnSetTensor4dDescriptor", &c.SetTensor4d) &&
              ResolveSymbol(lib, "cudnnDestroyTensorDescriptor", &c.DestroyTensor) &&
              ResolveSymbol(lib, "cudnnCreateFilterDescriptor", &c.CreateFilter) &&
              ResolveSymbol(lib, "cudnnSetFilter4dDescriptor", &c.SetFilter4d) &&
              ResolveSymbol(lib, "cudnnDestroyFilterDescriptor", &c.DestroyFilter) &&
              ResolveSymbol(lib, "cudnnCreateConvolutionDescriptor", &c.CreateConv) &&
              ResolveSymbol(lib, "cudnnSetConvolution2dDescriptor", &c.SetConv2d) &&
              ResolveSymbol(lib, "cudnnSetConvolutionGroupCount", &c.SetGroupCount) &&
              ResolveSymbol(lib, "cudnnSetConvolutionMathType", &c.SetMathType) &&
              ResolveSymbol(lib, "cudnnDestroyConvolutionDescriptor", &c.DestroyConv) &&
              ResolveSymbol(lib, "cudnnGetConvolutionForwardAlgorithmMaxCount", &c.AlgoMaxCount) &&
              ResolveSymbol(lib, "cudnnFindConvolutionForwardAlgorithmEx", &c.FindForwardEx) &&
              ResolveSymbol(lib, "cudnnConvolutionForward", &c.Forward) &&
              ResolveSymbol(lib, "cudnnAddTensor", &c.AddTensor);
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
      // cuDNN reports as the math of the others; f16 and bf16: any; math=tf32:
      // not ALLOW_CONVERSION, which converts f32 data to f16 (not TF32's
      // rounding: f16's narrower range).
      if (perf[i].status != 0 ||
          (!tensor_ops_ && (perf[i].math_type == kCudnnTensorOpMath ||
                            perf[i].math_type == kCudnnTensorOpMathAllowConversion)) ||
          (dtype_ == DType::kF32 && perf[i].math_type == kCudnnTensorOpMathAllowConversion))
        continue;
      // cuDNN runs the kernel of (algorithm, math type): the one found is
      // run only with its own math type set (an exact f32 or f64 problem
      // keeps FMA math, under which every entry it took was found).
      if (tensor_ops_) {
        const int set = lib_->SetMathType(conv_, perf[i].math_type);
        if (set != 0) {
          status_ = Status::kRuntimeError;
          why_not_ = std::string("cudnnSetConvolutionMathType failed: ") + lib_->ErrorString(set);
          return;
        }
      }
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

std::unique_ptr<CudaLibraryCall> CudaLibraryCall::Cudnn(CudaContext& context,
                                                        const beast::Problem& problem,
                                                        const CudaOperands& operands) {
  return std::make_unique<CudnnCall>(context, problem, operands);
}

}  // namespace beast::harness
