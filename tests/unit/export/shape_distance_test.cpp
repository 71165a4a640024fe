// ShapeDistance and SameKind of the exporter's nearest-tuned tier
// (beast/export/export_nearest.hpp): exact values on hand-made shapes.
#include <gtest/gtest.h>

#include <cmath>

#include "beast/export/export_nearest.hpp"

namespace beast {
namespace {

Problem P(const char* text) { return Problem::Parse(text); }

TEST(ShapeDistance, GemmIsEuclideanOverLog2Sizes) {
  EXPECT_EQ(ShapeDistance(P("gemm:M=64,N=48,K=40"), P("gemm:M=64,N=48,K=40")), 0.0);
  EXPECT_DOUBLE_EQ(ShapeDistance(P("gemm:M=64,N=48,K=40"), P("gemm:M=128,N=48,K=40")), 1.0);
  EXPECT_DOUBLE_EQ(ShapeDistance(P("gemm:M=64,N=64,K=64"), P("gemm:M=128,N=32,K=64")),
                   std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(ShapeDistance(P("gemm:M=60,N=48,K=40"), P("gemm:M=64,N=48,K=40")),
                   std::log2(64.0) - std::log2(60.0));
  EXPECT_DOUBLE_EQ(ShapeDistance(P("gemm:M=64,N=48,K=40"), P("gemm:M=60,N=48,K=40")),
                   ShapeDistance(P("gemm:M=60,N=48,K=40"), P("gemm:M=64,N=48,K=40")));
}

TEST(ShapeDistance, ConvCountsPadsAndBiasFromZero) {
  const Problem base = P("conv2d:N=1,C=8,H=16,W=16,K=8,R=3,S=3,pad=0,layout=NCHW");
  // pad 0 -> 1 and 1 -> 3 are each one doubling of (1 + pad); bias too.
  EXPECT_DOUBLE_EQ(
      ShapeDistance(base, P("conv2d:N=1,C=8,H=16,W=16,K=8,R=3,S=3,pad_h=1,pad_w=0,layout=NCHW")),
      1.0);
  EXPECT_DOUBLE_EQ(
      ShapeDistance(base, P("conv2d:N=1,C=8,H=16,W=16,K=8,R=3,S=3,pad_h=3,pad_w=1,layout=NCHW")),
      std::sqrt(4.0 + 1.0));
  EXPECT_DOUBLE_EQ(
      ShapeDistance(base, P("conv2d:N=1,C=8,H=16,W=16,K=8,R=3,S=3,bias=1,layout=NCHW")), 1.0);
  EXPECT_DOUBLE_EQ(ShapeDistance(base, P("conv2d:N=2,C=8,H=16,W=16,K=8,R=3,S=3,stride=2,"
                                         "dilation=2,groups=2,layout=NCHW")),
                   std::sqrt(1.0 + 2.0 + 2.0 + 1.0));
  EXPECT_DOUBLE_EQ(ShapeDistance(base, P("conv2d:N=1,C=8,H=16,W=16,K=8,R=1,S=1,layout=NCHW")),
                   std::sqrt(2.0) * std::log2(3.0));
}

TEST(SameKind, OpLayoutAndTranspositionsMustMatch) {
  EXPECT_TRUE(SameKind(P("gemm:M=1,N=2,K=3"), P("gemm:M=9,N=9,K=9")));
  EXPECT_FALSE(SameKind(P("gemm:M=1,N=2,K=3"), P("gemm:M=1,N=2,K=3,transA=1")));
  EXPECT_FALSE(SameKind(P("gemm:M=1,N=2,K=3"), P("gemm:M=1,N=2,K=3,transB=1")));
  EXPECT_FALSE(SameKind(P("gemm:M=1,N=2,K=3"), P("gemm:M=1,N=2,K=3,layout=col")));
  EXPECT_TRUE(SameKind(P("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,layout=NHWC"),
                       P("conv2d:N=2,C=8,H=4,W=4,K=8,R=1,S=1,bias=1,groups=2,layout=NHWC")));
  EXPECT_FALSE(SameKind(P("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,layout=NHWC"),
                        P("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,layout=NCHW")));
  EXPECT_FALSE(
      SameKind(P("conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,layout=NCHW"), P("gemm:M=1,N=2,K=3")));
}

}  // namespace
}  // namespace beast
