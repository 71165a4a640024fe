// Problem: one operation to tune (conv2d forward or GEMM), its dtype, layout
// and shape. Parsed from the CLI form, validated on construction, with a
// canonical key that identifies it in the database.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace beast {

enum class OpKind { kConv2d, kGemm };
// Element types: f32, f64, and the 16-bit storage types f16 and bf16 (which
// accumulate in f32, the deep-learning convention). A template says which it
// renders (SpaceSpec::dtypes).
enum class DType { kF32, kF64, kF16, kBF16 };
enum class Layout { kNCHW, kNHWC };

struct Conv2dShape {
  int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1, groups = 1;
  bool bias = false;  // y[.., k, ..] += b[k]: the kernel takes (x, w, b, y)
  Layout layout = Layout::kNCHW;
  int64_t OutH() const;  // P
  int64_t OutW() const;  // Q
};

struct GemmShape {
  int64_t m = 1, n = 1, k = 1;
  bool trans_a = false, trans_b = false;
  bool col_major = false;  // every matrix column-major (BLAS order); else row-major
};

class Problem {
 public:
  // Parses "conv2d:N=1,C=64,...,layout=NCHW,dtype=f32" or
  // "gemm:M=512,N=512,K=512,dtype=f32" (and ",math=tf32" for an f32 problem
  // that allows TF32 tensor cores). Throws Error(kBadArgument) naming the
  // offending key, or the impossible dimension.
  static Problem Parse(const std::string& text);
  static Problem Conv2d(const Conv2dShape& shape, DType dtype = DType::kF32, bool tf32 = false);
  static Problem Gemm(const GemmShape& shape, DType dtype = DType::kF32, bool tf32 = false);

  OpKind op() const { return op_; }
  DType dtype() const { return dtype_; }
  // math=tf32 (f32 only): the products may round their inputs to TF32 (10
  // mantissa bits) as NVIDIA's tensor cores do; the sums stay f32. Exact
  // FP32 kernels serve such a problem too; its key ends ",math=tf32".
  bool tf32() const { return tf32_; }
  const Conv2dShape& conv() const { return conv_; }
  const GemmShape& gemm() const { return gemm_; }

  // Canonical text: every key, fixed order, so equal problems have equal keys.
  std::string Key() const;
  // Floating-point operations of one run (2 per multiply-add).
  double Flops() const;
  // Names a space expression may read: conv2d: N C H W K R S P Q stride_h
  // stride_w pad_h pad_w dilation_h dilation_w groups bias nhwc (1 for the
  // NHWC layout); gemm: M N K trans_a trans_b col_major; both dtype_bytes,
  // compute_bytes and tf32 (1 with math=tf32).
  std::map<std::string, int64_t> Variables() const;
  std::string OpName() const;  // "conv2d" or "gemm"

 private:
  void Validate() const;
  OpKind op_ = OpKind::kGemm;
  DType dtype_ = DType::kF32;
  bool tf32_ = false;
  Conv2dShape conv_;
  GemmShape gemm_;
};

// The key the database holds for a problem named on a command line (a
// filter of beast query, report, export-results, replay --db): a conv2d or
// GEMM problem's canonical key (Problem::Parse(text).Key(): any spelling
// beast takes), an imported one ("kt:KERNEL:SIZE", beast import's) as it
// is. Throws Error(kBadArgument) for a malformed conv2d or GEMM problem.
std::string ProblemFilterKey(const std::string& text);

const char* LayoutName(Layout layout);
// "f32", "f64", "f16", "bf16".
const char* DTypeName(DType dtype);
// The dtype named `name`; nullopt for any other text.
std::optional<DType> ParseDType(const std::string& name);
// Bytes of one element: 4, 8, 2, 2.
int DTypeBytes(DType dtype);
// Bytes of the type a kernel of that dtype computes in: 8 for f64, else 4
// (f16 and bf16 accumulate in f32).
int ComputeBytes(DType dtype);

}  // namespace beast
