// Tests of the STREAM bandwidth microbenchmark on the OpenCL device (PoCL
// here): its copy and triad kernels compute exactly what STREAM defines,
// and the measurement comes back ok with a plausible figure and names the
// kernel and size that gave it.
#include "harness/opencl/opencl_bandwidth.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "harness/opencl/opencl_kernel.hpp"

namespace beast::harness {
namespace {

TEST(StreamBandwidth, CopyAndTriadComputeWhatStreamDefines) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(OpenClStreamKernelSource(), "");
  ASSERT_TRUE(build.ok) << build.log;
  const size_t n = 256;  // floats: 64 float4
  std::vector<float> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<float>(i), c[i] = static_cast<float>(2 * i);
  OpenClBuffer da = context.Allocate(n * 4), db = context.Allocate(n * 4),
               dc = context.Allocate(n * 4);
  context.Write(db, b.data(), n * 4);
  context.Write(dc, c.data(), n * 4);
  LaunchGeometry geometry;
  geometry.global[0] = n / 4;
  geometry.local[0] = 16;
  OpenClKernel triad(context, build.program, "beast_stream_triad",
                     {da, db, dc, OpenClKernelArg::Float(3.0f)});
  ASSERT_TRUE(triad.Launch(geometry).ok());
  context.Read(da, a.data(), n * 4);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], 7.0f * i) << i;  // b + 3c
  OpenClKernel copy(context, build.program, "beast_stream_copy", {dc, db});
  ASSERT_TRUE(copy.Launch(geometry).ok());
  context.Read(db, b.data(), n * 4);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(b[i], 2.0f * i) << i;
}

TEST(StreamBandwidth, MeasuresAPlausibleFigure) {
  OpenClContext context(0);
  BenchmarkPlan plan;
  const BandwidthResult result = MeasureOpenClBandwidth(context, plan);
  ASSERT_TRUE(result.ok) << result.error;
  // A memory system between a slow laptop's and an HBM3 GPU's.
  EXPECT_GT(result.gbs, 0.5);
  EXPECT_LT(result.gbs, 10000.0);
  EXPECT_TRUE(result.variant.rfind("copy ", 0) == 0 || result.variant.rfind("triad ", 0) == 0)
      << result.variant;
  EXPECT_EQ(result.method, kOpenClBandwidthMethod);
  std::printf("bandwidth %.1f GB/s (%s)\n", result.gbs, result.variant.c_str());
}

}  // namespace
}  // namespace beast::harness
