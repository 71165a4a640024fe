// Tests of a problem's buffer sizes and the checks that it fits a device
// (problem_buffers.hpp): sizes per dtype, the largest allocation, global
// memory, host memory, 64-bit overflow, and f64 on a device without double
// precision.
#include "beast/problem/problem_buffers.hpp"

#include <gtest/gtest.h>

#include <string>

#include "beast/core/error.hpp"

namespace beast {
namespace {

DeviceInfo Device(int64_t max_alloc, int64_t global, bool fp64) {
  DeviceInfo d;
  d.backend = Backend::kOpenCL;
  d.index = 0;
  d.limits.max_alloc_bytes = max_alloc;
  d.limits.global_mem_bytes = global;
  d.limits.fp64 = fp64;
  return d;
}

std::string Refusal(const Problem& p, const DeviceInfo& d, int64_t host) {
  try {
    CheckProblemFits(p, d, host);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    return e.what();
  }
  return "fits";
}

TEST(ProblemBuffers, SizesFollowTheDtype) {
  const Problem f32 = Problem::Parse("gemm:M=10,N=20,K=30");
  const Problem f64 = Problem::Parse("gemm:M=10,N=20,K=30,dtype=f64");
  ASSERT_EQ(ProblemBuffers(f32).size(), 3u);
  EXPECT_EQ(ProblemBuffers(f32)[0].bytes, 4 * 10 * 30);
  EXPECT_EQ(ProblemBuffers(f64)[2].bytes, 8 * 10 * 20);
  EXPECT_EQ(ReferenceBytesMoved(f64), 8 * (10 * 30 + 30 * 20 + 10 * 20));
  const Problem conv = Problem::Parse("conv2d:N=2,C=4,H=5,W=5,K=6,R=3,S=3,bias=1,dtype=f16");
  ASSERT_EQ(ProblemBuffers(conv).size(), 4u);
  EXPECT_EQ(ProblemBuffers(conv)[2].name, "b (bias)");
  EXPECT_EQ(ProblemBuffers(conv)[3].bytes, 2 * 2 * 6 * 3 * 3);
}

TEST(ProblemBuffers, WhatDoesNotFitIsNamedWithItsLimit) {
  const Problem big = Problem::Parse("gemm:M=1000,N=1000,K=1");
  EXPECT_EQ(Refusal(big, Device(1000000, 0, true), 0),
            "problem gemm:M=1000,N=1000,K=1,transA=0,transB=0,dtype=f32: buffer C needs 4.0 MB, "
            "more than the largest allocation opencl:0 allows (1.0 MB)");
  EXPECT_EQ(Refusal(big, Device(0, 3000000, true), 0),
            "problem gemm:M=1000,N=1000,K=1,transA=0,transB=0,dtype=f32: its buffers need 4.0 MB, "
            "more than opencl:0's global memory (3.0 MB)");
  EXPECT_EQ(Refusal(big, Device(0, 0, true), 5000000),
            "problem gemm:M=1000,N=1000,K=1,transA=0,transB=0,dtype=f32: its CPU reference needs "
            "8.0 MB of host memory, more than this machine has (5.0 MB)");
  EXPECT_EQ(Refusal(big, Device(0, 0, true), 0), "fits");
}

TEST(ProblemBuffers, F64NeedsADeviceWithDoublePrecision) {
  const Problem f64 = Problem::Parse("gemm:M=8,N=8,K=8,dtype=f64");
  EXPECT_EQ(Refusal(f64, Device(0, 0, false), 0),
            "problem gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f64: dtype f64 needs double "
            "precision, which opencl:0 does not have (no cl_khr_fp64)");
  EXPECT_EQ(Refusal(f64, Device(0, 0, true), 0), "fits");
}

}  // namespace
}  // namespace beast
