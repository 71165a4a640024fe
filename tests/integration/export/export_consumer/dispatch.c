/* dispatch.c: which tier serves a shape, through beast_explain, and that what
 * runs is right. export_test.cpp tunes the exact shapes and names to the
 * export the shapes it was not given (its kRequested): two of them get the
 * config of their nearest tuned problem, one of them shaped like ONNX's
 * pytorch-converted/test_Conv2d; one has only a tuned neighbour whose
 * vectors do not divide its N, so it stays on the generic kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "consumer.h"

void CheckDispatch(beast_context* ctx) {
  const beast_gemm_problem exact = {64, 64, 64, 0, 1, BEAST_DTYPE_F32, 0};
  const char* const exact_expect[] = {
      "gemm:M=64,N=64,K=64,transA=0,transB=1,dtype=f32 -> exact tuned: gemm/tiled", "VWN=8", NULL};
  CheckGemmCall(ctx, exact, 401, "dispatch exact gemm 64x64x64 trans_b", exact_expect);

  const beast_gemm_problem near_gemm = {60, 48, 40, 0, 0, BEAST_DTYPE_F32, 0};
  const char* const near_gemm_expect[] = {
      "gemm:M=60,N=48,K=40,transA=0,transB=0,dtype=f32 -> nearest tuned: config of gemm/tiled "
      "tuned for gemm:M=64,N=48,K=40,transA=0,transB=0,dtype=f32 (distance 0.093)",
      NULL};
  CheckGemmCall(ctx, near_gemm, 411, "dispatch nearest gemm 60x48x40", near_gemm_expect);

  const beast_conv2d_problem near_conv = {
      1, 3, 12, 12, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 0};
  const char* const near_conv_expect[] = {
      "-> nearest tuned: config of conv2d/direct_nchw tuned for "
      "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride_h=2,stride_w=2,pad_h=1,pad_w=1,dilation_h=1,"
      "dilation_w=1,groups=1,layout=NCHW,dtype=f32 (distance 0.171)",
      NULL};
  CheckConvCall(ctx, near_conv, 421, "dispatch nearest conv2d 12x12", near_conv_expect);

  const beast_conv2d_problem near_golden = {
      2, 3, 7, 5, 4, 3, 2, 1, 1, 0, 0, 1, 1, 1, BEAST_LAYOUT_NCHW, BEAST_DTYPE_F32, 1};
  /* The nearest tuned problem (distance 2.719, groups=2) has a winner whose
   * 16-row tile is more than twice this shape's 5 output rows (a soft
   * constraint of direct_nchw): the next one's, whose tile fits, serves it. */
  const char* const near_golden_expect[] = {
      "-> nearest tuned: config of conv2d/direct_nchw tuned for "
      "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride_h=2,stride_w=2,pad_h=1,pad_w=1,dilation_h=1,"
      "dilation_w=1,groups=1,layout=NCHW,dtype=f32 (distance 2.962)",
      NULL};
  CheckConvCall(ctx, near_golden, 431, "dispatch nearest conv2d (test_Conv2d's shape)",
                near_golden_expect);

  const beast_gemm_problem fallback = {64, 60, 64, 0, 1, BEAST_DTYPE_F32, 0};
  const char* const fallback_expect[] = {
      "gemm:M=64,N=60,K=64,transA=0,transB=1,dtype=f32 -> generic kernel beast_generic_gemm", NULL};
  CheckGemmCall(ctx, fallback, 441, "dispatch fallback gemm 64x60x64 trans_b", fallback_expect);
}
