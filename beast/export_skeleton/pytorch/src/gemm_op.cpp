// beast::gemm and beast::linear (gemm_op.h). The library multiplies row-major
// matrices, each optionally transposed: a row-major matrix runs as it is, the
// transpose of one (a.t(), weight.t() in linear) as that matrix with the
// transposition flag; only other strides are copied.
#include "gemm_op.h"

#include <c10/util/Exception.h>

#include "contexts.h"
#include "host_buffers.h"

namespace beast_torch {
namespace {

// A 2-D operand as the library takes it: its memory, and whether that memory
// holds the matrix or its transpose (both row-major).
struct Operand {
  at::Tensor memory;
  bool transposed = false;
  bool copied = false;
};

Operand AsOperand(const at::Tensor& t) {
  if (t.is_contiguous()) return {t, false, false};
  if (t.t().is_contiguous()) return {t, true, false};
  return {t.contiguous(), false, true};
}

struct GemmCall {
  beast_gemm_problem problem{};
  Operand a, b;
};

GemmCall Prepare(const at::Tensor& a, const at::Tensor& b, const char* op) {
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "beast::", op, ": a and b must be 2-D, not ", a.dim(),
              "-D and ", b.dim(), "-D");
  TORCH_CHECK(a.size(1) == b.size(0), "beast::", op, ": a is ", a.sizes(), " and b ", b.sizes(),
              ": inner sizes differ");
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "beast::", op, ": a is ", a.scalar_type(),
              " but b is ", b.scalar_type());
  TORCH_CHECK(a.device() == b.device(), "beast::", op, ": a is on ", a.device(), " but b on ",
              b.device());
  GemmCall call;
  call.problem.dtype = DTypeOf(a, op);
  call.problem.m = Narrow(a.size(0), op, "M");
  call.problem.k = Narrow(a.size(1), op, "K");
  call.problem.n = Narrow(b.size(1), op, "N");
  call.a = AsOperand(a);
  call.b = AsOperand(b);
  call.problem.trans_a = call.a.transposed ? 1 : 0;
  call.problem.trans_b = call.b.transposed ? 1 : 0;
  return call;
}

at::Tensor Run(const at::Tensor& a, const at::Tensor& b, const char* op) {
  GemmCall call = Prepare(a, b, op);
  const beast_gemm_problem& p = call.problem;
  at::Tensor c = at::empty({p.m, p.n}, a.options().memory_format(at::MemoryFormat::Contiguous));
  if (c.numel() == 0) return c;
  if (p.k == 0) return c.zero_();
  beast_context* ctx = ContextFor(a.device());
  void* pa = call.a.memory.data_ptr();
  void* pb = call.b.memory.data_ptr();
  if (a.is_cuda()) {
    Check(beast_gemm(ctx, &p, pa, pb, c.data_ptr(), CurrentStream(a.device())), op);
  } else if (CpuTensorsWrapped()) {
    HostBuffers buffers(ctx);
    Check(beast_gemm(ctx, &p, buffers.Wrap(call.a.memory, false),
                     buffers.Wrap(call.b.memory, false), buffers.Wrap(c, true), nullptr),
          op);
    buffers.Finish(op);
  } else {
    Check(beast_gemm_host(ctx, &p, pa, pb, c.data_ptr()), op);
  }
  return c;
}

}  // namespace

at::Tensor Gemm(const at::Tensor& a, const at::Tensor& b) {
  RefuseAutograd("gemm", {&a, &b});
  return Run(a, b, "gemm");
}

at::Tensor Linear(const at::Tensor& x, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias) {
  RefuseAutograd("linear", {&x, &weight, bias ? &*bias : nullptr});
  TORCH_CHECK(x.dim() >= 1 && weight.dim() == 2 && x.size(-1) == weight.size(1),
              "beast::linear: input ", x.sizes(), " and weight ", weight.sizes(),
              " do not fit (weight is out_features x in_features)");
  const bool has_bias = bias && bias->defined();
  // The bias is checked before the GEMM runs, as F.linear checks it: one of
  // another dtype would be rounded into the output by add_, not refused.
  if (has_bias) {
    TORCH_CHECK(bias->dim() == 1 && bias->size(0) == weight.size(0),
                "beast::linear: bias must hold ", weight.size(0), " values, not ", bias->sizes());
    TORCH_CHECK(bias->scalar_type() == x.scalar_type(), "beast::linear: bias is ",
                bias->scalar_type(), " but input ", x.scalar_type());
    TORCH_CHECK(bias->device() == x.device(), "beast::linear: bias is on ", bias->device(),
                " but input on ", x.device());
  }
  // Every leading dimension is a row of one GEMM; weight.t() runs transposed.
  at::Tensor rows = x.reshape({-1, x.size(-1)});
  at::Tensor y = Run(rows, weight.t(), "linear");
  if (has_bias) y.add_(*bias);  // the library's GEMM has no bias: PyTorch adds it
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = weight.size(0);
  return y.view(shape);
}

std::string ExplainGemm(const at::Tensor& a, const at::Tensor& b) {
  GemmCall call = Prepare(a, b, "explain_gemm");
  char text[2048];
  Check(beast_explain_gemm(ContextFor(a.device()), &call.problem, text, sizeof text),
        "explain_gemm");
  std::string out = text;
  out += call.a.copied || call.b.copied
             ? std::string("\n") + (call.a.copied ? "a" : "") +
                   (call.a.copied && call.b.copied ? " and b"
                    : call.b.copied                ? "b"
                                                   : "") +
                   " copied into row-major memory (strides neither row- nor column-major)"
             : "\nno copies: the tensors run in their own memory";
  return out;
}

}  // namespace beast_torch
