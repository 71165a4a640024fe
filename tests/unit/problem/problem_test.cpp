// Problem parsing, validation, canonical keys and FLOP counts.
#include "beast/problem/problem.hpp"

#include <gtest/gtest.h>

#include "beast/core/error.hpp"

namespace beast {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    Problem::Parse(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    return e.what();
  }
  return "";
}

TEST(Problem, ParsesTheDefaultConvolution) {
  Problem p =
      Problem::Parse("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32");
  EXPECT_EQ(p.op(), OpKind::kConv2d);
  EXPECT_EQ(p.conv().OutH(), 56);
  EXPECT_EQ(p.conv().OutW(), 56);
  EXPECT_EQ(p.Key(),
            "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,"
            "dilation_h=1,dilation_w=1,groups=1,layout=NCHW,dtype=f32");
  EXPECT_DOUBLE_EQ(p.Flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
  EXPECT_EQ(p.Variables().at("P"), 56);
  EXPECT_EQ(p.Variables().at("groups"), 1);
}

TEST(Problem, KeyIsCanonical) {
  Problem a =
      Problem::Parse("conv2d:N=2,C=8,H=9,W=7,K=4,R=3,S=1,stride_h=2,stride_w=1,pad_h=1,pad_w=0");
  Problem b = Problem::Parse(Problem::Parse(a.Key()).Key());
  EXPECT_EQ(a.Key(), b.Key());
  EXPECT_EQ(a.conv().OutH(), 5);  // (9 + 2 - 3) / 2 + 1
  EXPECT_EQ(a.conv().OutW(), 7);
  Problem g = Problem::Parse("gemm:M=512,N=256,K=128,transA=1,dtype=f32");
  EXPECT_EQ(g.Key(), "gemm:M=512,N=256,K=128,transA=1,transB=0,dtype=f32");
  EXPECT_DOUBLE_EQ(g.Flops(), 2.0 * 512 * 256 * 128);
  EXPECT_EQ(Problem::Parse("gemm:M=1,N=2,K=3,trans_b=1").gemm().trans_b, true);
}

TEST(Problem, BiasIsAFlagThatTheKeyListsOnlyWhenSet) {
  Problem with = Problem::Parse("conv2d:N=1,C=4,H=5,W=5,K=8,R=3,S=3,bias=1,layout=NHWC");
  EXPECT_TRUE(with.conv().bias);
  EXPECT_EQ(with.Key(),
            "conv2d:N=1,C=4,H=5,W=5,K=8,R=3,S=3,stride_h=1,stride_w=1,pad_h=0,pad_w=0,"
            "dilation_h=1,dilation_w=1,groups=1,bias=1,layout=NHWC,dtype=f32");
  EXPECT_EQ(Problem::Parse(with.Key()).Key(), with.Key());
  EXPECT_EQ(with.Variables().at("bias"), 1);
  Problem without = Problem::Parse("conv2d:N=1,C=4,H=5,W=5,K=8,R=3,S=3,bias=0");
  EXPECT_FALSE(without.conv().bias);
  EXPECT_EQ(without.Key().find("bias"), std::string::npos);
  EXPECT_EQ(without.Variables().at("bias"), 0);
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=4,H=5,W=5,K=8,R=3,S=3,bias=2"),
            "problem \"conv2d:N=1,C=4,H=5,W=5,K=8,R=3,S=3,bias=2\": bias must be 0 or 1, not 2");
  EXPECT_EQ(
      ErrorOf("gemm:M=1,N=1,K=1,bias=1").rfind("unknown key \"bias\" for gemm (known: ", 0),
      std::string::npos);  // rfind(.., 0) is "starts with": the message names the problem first
  EXPECT_NE(
      ErrorOf("gemm:M=1,N=1,K=1,bias=1").find(": unknown key \"bias\" for gemm (known: M N K"),
      std::string::npos);
}

TEST(Problem, ColumnMajorGemmIsTheTransposedRowMajorProductForTemplates) {
  Problem col = Problem::Parse("gemm:M=64,N=32,K=16,transA=1,layout=col");
  EXPECT_TRUE(col.gemm().col_major);
  EXPECT_EQ(col.Key(), "gemm:M=64,N=32,K=16,transA=1,transB=0,layout=col,dtype=f32");
  EXPECT_EQ(Problem::Parse(col.Key()).Key(), col.Key());
  std::map<std::string, int64_t> v = col.Variables();
  EXPECT_EQ(v.at("M"), 32);
  EXPECT_EQ(v.at("N"), 64);
  EXPECT_EQ(v.at("trans_a"), 0);
  EXPECT_EQ(v.at("trans_b"), 1);
  EXPECT_EQ(v.at("col_major"), 1);
  Problem row = Problem::Parse("gemm:M=64,N=32,K=16,transA=1,layout=row");
  EXPECT_EQ(row.Key(), "gemm:M=64,N=32,K=16,transA=1,transB=0,dtype=f32");
  EXPECT_EQ(row.Variables().at("M"), 64);
  EXPECT_EQ(ErrorOf("gemm:M=1,N=1,K=1,layout=NCHW"),
            "problem \"gemm:M=1,N=1,K=1,layout=NCHW\": layout \"NCHW\" is not row or col");
}

TEST(Problem, DilationStrideAndGroupsShapeTheOutput) {
  Problem p =
      Problem::Parse("conv2d:N=1,C=4,H=10,W=10,K=6,R=3,S=3,dilation=2,stride=3,pad=2,groups=2");
  EXPECT_EQ(p.conv().OutH(), 4);  // (10 + 4 - 5) / 3 + 1
  EXPECT_DOUBLE_EQ(p.Flops(), 2.0 * 6 * 4 * 4 * 2 * 9);
}

TEST(Problem, EveryDtypeIsInTheKeyAndSizesTheBuffers) {
  const struct {
    const char* name;
    DType dtype;
    int bytes;
  } cases[] = {{"f32", DType::kF32, 4},
               {"f64", DType::kF64, 8},
               {"f16", DType::kF16, 2},
               {"bf16", DType::kBF16, 2}};
  for (const auto& c : cases) {
    const Problem gemm = Problem::Parse(std::string("gemm:M=4,N=5,K=6,dtype=") + c.name);
    EXPECT_EQ(gemm.dtype(), c.dtype);
    EXPECT_EQ(gemm.Key(), std::string("gemm:M=4,N=5,K=6,transA=0,transB=0,dtype=") + c.name);
    EXPECT_EQ(Problem::Parse(gemm.Key()).Key(), gemm.Key());
    EXPECT_EQ(DTypeBytes(c.dtype), c.bytes);
    EXPECT_EQ(ParseDType(c.name), c.dtype);
    const Problem conv =
        Problem::Parse(std::string("conv2d:N=1,C=2,H=3,W=3,K=4,R=1,S=1,dtype=") + c.name);
    EXPECT_EQ(conv.dtype(), c.dtype);
    EXPECT_EQ(conv.Key().substr(conv.Key().rfind(',')), std::string(",dtype=") + c.name);
  }
  EXPECT_EQ(Problem::Parse("gemm:M=4,N=5,K=6").dtype(), DType::kF32);
  EXPECT_EQ(ParseDType("f8"), std::nullopt);
}

// math=tf32 marks an f32 problem whose products may round their inputs to
// TF32: in the key only when set (exact-FP32 keys stay as they were), a
// variable tf32 for spaces, refused for any other dtype.
TEST(Problem, MathTf32IsInTheKeyOnlyWhenSetAndOnlyForF32) {
  const Problem gemm = Problem::Parse("gemm:M=4,N=5,K=6,math=tf32");
  EXPECT_TRUE(gemm.tf32());
  EXPECT_EQ(gemm.Key(), "gemm:M=4,N=5,K=6,transA=0,transB=0,dtype=f32,math=tf32");
  EXPECT_EQ(Problem::Parse(gemm.Key()).Key(), gemm.Key());
  EXPECT_EQ(gemm.Variables().at("tf32"), 1);
  const Problem exact = Problem::Parse("gemm:M=4,N=5,K=6,math=fp32");
  EXPECT_FALSE(exact.tf32());
  EXPECT_EQ(exact.Key(), "gemm:M=4,N=5,K=6,transA=0,transB=0,dtype=f32");
  EXPECT_EQ(exact.Variables().at("tf32"), 0);
  const Problem conv = Problem::Parse("conv2d:N=1,C=2,H=3,W=3,K=4,R=1,S=1,math=tf32,layout=NHWC");
  EXPECT_EQ(conv.Key().substr(conv.Key().find(",layout=")), ",layout=NHWC,dtype=f32,math=tf32");
  EXPECT_EQ(conv.Variables().at("nhwc"), 1);
  EXPECT_EQ(ErrorOf("gemm:M=4,N=5,K=6,dtype=f16,math=tf32"),
            "problem \"gemm:M=4,N=5,K=6,dtype=f16,math=tf32\": math=tf32 is for f32 problems, "
            "not f16 (f16 and bf16 run on tensor cores as they are)");
  EXPECT_EQ(ErrorOf("gemm:M=4,N=5,K=6,math=fast"),
            "problem \"gemm:M=4,N=5,K=6,math=fast\": math \"fast\" is not fp32 or tf32");
}

TEST(Problem, BadInputIsOneClearLine) {
  EXPECT_EQ(ErrorOf("conv3d:N=1"),
            "problem \"conv3d:N=1\": unknown op \"conv3d\" (known: conv2d gemm)");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2"), "problem \"gemm:M=1,N=2\": missing K");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=x"),
            "problem \"gemm:M=1,N=2,K=x\": value of K is not an integer: \"x\"");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=3,Q=4"),
            "problem \"gemm:M=1,N=2,K=3,Q=4\": unknown key \"Q\" for gemm (known: M N K transA "
            "transB trans_a "
            "trans_b layout dtype math)");
  EXPECT_EQ(ErrorOf("gemm:M=1,M=2,N=2,K=3"),
            "problem \"gemm:M=1,M=2,N=2,K=3\": key \"M\" given twice");
  EXPECT_EQ(ErrorOf("gemm:M=0,N=2,K=3"), "problem \"gemm:M=0,N=2,K=3\": M must be positive, not 0");
  EXPECT_EQ(ErrorOf("gemm:M=1,N=2,K=3,dtype=f8"),
            "problem \"gemm:M=1,N=2,K=3,dtype=f8\": dtype \"f8\" is not one of f32, f64, f16, "
            "bf16");
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=3,H=2,W=2,K=4,R=5,S=5"),
            "problem \"conv2d:N=1,C=3,H=2,W=2,K=4,R=5,S=5\": the dilated filter is larger than the "
            "padded "
            "input (output would be -2x-2)");
  EXPECT_EQ(
      ErrorOf("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,groups=2"),
      "problem \"conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,groups=2\": groups=2 must divide C=3 and K=4");
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=3,H=2,W=2,K=4,R=3,S=3,stride=2"),
            "problem \"conv2d:N=1,C=3,H=2,W=2,K=4,R=3,S=3,stride=2\": the dilated filter is larger "
            "than the "
            "padded input (output would be 0x0)");
  EXPECT_EQ(ErrorOf("gemm"), "problem \"gemm\": expected OP:KEY=VALUE,... with OP conv2d or gemm");
  // Both axes and one of them: which won would depend on their order.
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,stride_h=1,stride=2"),
            "problem \"conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,stride_h=1,stride=2\": stride and "
            "stride_h both given (give stride_h and stride_w)");
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,pad=1,pad_w=0"),
            "problem \"conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,pad=1,pad_w=0\": pad and pad_w both "
            "given (give pad_h and pad_w)");
  // Sizes past an int (a kernel's index), before any arithmetic on them.
  EXPECT_EQ(ErrorOf("gemm:M=2147483648,N=2,K=3"),
            "problem \"gemm:M=2147483648,N=2,K=3\": M=2147483648 is more than 2147483647");
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=1,H=1,W=1,K=1,R=3,S=1,dilation_h=4611686018427387905"),
            "problem \"conv2d:N=1,C=1,H=1,W=1,K=1,R=3,S=1,dilation_h=4611686018427387905\": "
            "dilation_h=4611686018427387905 is more than 2147483647");
  EXPECT_EQ(ErrorOf("conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,layout=CHWN"),
            "problem \"conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,layout=CHWN\": layout \"CHWN\" is not "
            "NCHW or NHWC");
}

}  // namespace
}  // namespace beast
