// The OpenCL side of the harness on the machine's OpenCL device (PoCL on the
// CPU in CI): device list, builds that fail as data, launches that fail as
// data, exact results, and misuse that throws.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "harness/opencl/opencl_kernel.hpp"

namespace beast::harness {
namespace {

constexpr const char* kVectorAdd = R"(
__kernel void vector_add(__global const float* a, __global const float* b,
                         __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)";

constexpr const char* kTwoDims = R"(
__kernel void fill_index(__global float* out) {
  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = get_global_id(0);
}
)";

TEST(OpenCLDevices, ListsAtLeastOneDeviceWithSaneLimits) {
  std::vector<DeviceInfo> devices = ListOpenClDevices();
  ASSERT_GE(devices.size(), 1u);
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    EXPECT_EQ(d.backend, Backend::kOpenCL);
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_EQ(d.Id(), "opencl:" + std::to_string(i));
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.vendor.empty());
    EXPECT_FALSE(d.driver_version.empty());
    EXPECT_EQ(d.arch.rfind("OpenCL ", 0), 0u) << d.arch;
    EXPECT_GE(d.limits.max_work_group_size, 1);
    for (int k = 0; k < 3; ++k) {
      EXPECT_GE(d.limits.max_work_item_sizes[k], 1);
      EXPECT_LE(d.limits.max_work_item_sizes[k], d.limits.max_work_group_size);
    }
    EXPECT_GT(d.limits.local_mem_bytes, 0);
    EXPECT_GT(d.limits.global_mem_bytes, d.limits.local_mem_bytes);
    EXPECT_GE(d.limits.compute_units, 1);
    EXPECT_GE(d.limits.clock_mhz, 1);
    EXPECT_GE(d.limits.warp_size, 1);
    EXPECT_LE(d.limits.warp_size, d.limits.max_work_group_size);
  }
}

TEST(OpenClContext, DescribesTheDeviceLikeTheList) {
  OpenClContext context(0);
  DeviceInfo listed = ListOpenClDevices()[0];
  EXPECT_EQ(context.device().name, listed.name);
  EXPECT_EQ(context.device().arch, listed.arch);
  EXPECT_EQ(context.device().limits.max_work_group_size, listed.limits.max_work_group_size);
  EXPECT_EQ(context.device().limits.warp_size, listed.limits.warp_size);
}

TEST(OpenClContext, BuildsAndRunsVectorAddExactly) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(kVectorAdd, "-cl-std=CL1.2");
  ASSERT_TRUE(build.ok) << build.log;
  ASSERT_NE(build.program, nullptr);
  EXPECT_GT(build.compile_ms, 0);

  const int n = 1000;
  std::vector<float> a(n), b(n), c(n, -1);
  for (int i = 0; i < n; ++i) a[i] = static_cast<float>(i), b[i] = static_cast<float>(2 * i);
  OpenClBuffer da = context.Allocate(n * sizeof(float));
  OpenClBuffer db = context.Allocate(n * sizeof(float));
  OpenClBuffer dc = context.Allocate(n * sizeof(float));
  EXPECT_EQ(dc.bytes(), n * sizeof(float));
  context.Write(da, a.data(), n * sizeof(float));
  context.Write(db, b.data(), n * sizeof(float));
  context.Fill(dc, 0);

  OpenClKernel runner(context, build.program, "vector_add",
                      {da, db, dc, OpenClKernelArg::Int32(n)});
  ASSERT_TRUE(runner.ok()) << runner.message();
  EXPECT_GE(runner.resources().max_work_group_size, 64);
  LaunchGeometry geometry;
  geometry.global[0] = 1024;  // rounded up to the group size; the kernel guards i < n
  geometry.local[0] = 64;
  LaunchResult launch = runner.Launch(geometry);
  ASSERT_TRUE(launch.ok()) << launch.message;
  EXPECT_EQ(launch.status, LaunchStatus::kOk);
  EXPECT_EQ(launch.message, "");
  EXPECT_GT(launch.kernel_ms, 0);  // the profiling events' time: the kernel ran
  context.Read(dc, c.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 3.0f * i) << i;

  // A second launch with the runtime choosing the group size, same result.
  context.Fill(dc, 0);
  geometry.global[0] = n;
  geometry.local[0] = 0;
  ASSERT_TRUE(runner.Launch(geometry).ok());
  context.Read(dc, c.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 3.0f * i) << i;
}

TEST(OpenClContext, TwoDimensionalLaunch) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(kTwoDims, "");
  ASSERT_TRUE(build.ok) << build.log;
  OpenClBuffer out = context.Allocate(8 * 4 * sizeof(float));
  LaunchGeometry geometry;
  geometry.dims = 2;
  geometry.global[0] = 8, geometry.global[1] = 4;
  geometry.local[0] = 4, geometry.local[1] = 2;
  LaunchResult launch = Launch(context, build.program, "fill_index", {out}, geometry);
  ASSERT_TRUE(launch.ok()) << launch.message;
  std::vector<float> host(32);
  context.Read(out, host.data(), host.size() * sizeof(float));
  for (int i = 0; i < 32; ++i) ASSERT_EQ(host[i], static_cast<float>(i % 8)) << i;
}

TEST(OpenClContext, SyntaxErrorIsDataWithTheLog) {
  OpenClContext context(0);
  OpenClBuildResult build =
      context.Build("__kernel void broken(__global float* x) { x[0] = ; }\n", "");
  EXPECT_FALSE(build.ok);
  EXPECT_EQ(build.program, nullptr);
  EXPECT_NE(build.log.find("error"), std::string::npos) << build.log;
  EXPECT_NE(build.log.find("expected expression"), std::string::npos) << build.log;
  EXPECT_NE(build.log.find("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11)"),
            std::string::npos)
      << build.log;
}

TEST(OpenClContext, BadBuildOptionIsData) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(kVectorAdd, "-cl-no-such-option");
  EXPECT_FALSE(build.ok);
  EXPECT_NE(build.log.find("clBuildProgram failed: CL_INVALID_BUILD_OPTIONS (-43)"),
            std::string::npos)
      << build.log;
}

TEST(OpenClKernel, MissingKernelNameIsRuntimeError) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(kVectorAdd, "");
  ASSERT_TRUE(build.ok) << build.log;
  LaunchResult launch = Launch(context, build.program, "no_such_kernel", {}, LaunchGeometry());
  EXPECT_EQ(launch.status, LaunchStatus::kRuntimeError);
  EXPECT_EQ(launch.message,
            "clCreateKernel('no_such_kernel') failed: CL_INVALID_KERNEL_NAME (-46)");
}

TEST(OpenClKernel, TooLargeWorkGroupIsRuntimeError) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(kTwoDims, "");
  ASSERT_TRUE(build.ok) << build.log;
  // Each dimension within its own limit, the product twice the group limit.
  const size_t limit = context.device().limits.max_work_group_size;
  LaunchGeometry geometry;
  geometry.dims = 2;
  geometry.local[0] = limit, geometry.local[1] = 2;
  geometry.global[0] = limit, geometry.global[1] = 2;
  OpenClBuffer out = context.Allocate(2 * limit * sizeof(float));
  LaunchResult launch = Launch(context, build.program, "fill_index", {out}, geometry);
  EXPECT_EQ(launch.status, LaunchStatus::kRuntimeError);
  EXPECT_NE(launch.message.find("CL_INVALID_WORK_GROUP_SIZE (-54)"), std::string::npos)
      << launch.message;
  EXPECT_EQ(
      launch.message.find("clEnqueueNDRangeKernel('fill_index', global " + std::to_string(limit) +
                          "x2, local " + std::to_string(limit) + "x2)"),
      0u)
      << launch.message;
}

TEST(OpenClKernel, WrongArgumentIsRuntimeError) {
  OpenClContext context(0);
  OpenClBuildResult build = context.Build(kVectorAdd, "");
  ASSERT_TRUE(build.ok) << build.log;
  OpenClBuffer buffer = context.Allocate(64);
  // Argument 3 is an int, not a buffer.
  OpenClKernel runner(context, build.program, "vector_add", {buffer, buffer, buffer, buffer});
  EXPECT_FALSE(runner.ok());
  EXPECT_EQ(runner.message().rfind("clSetKernelArg(3) of 'vector_add' failed: ", 0), 0u)
      << runner.message();
  EXPECT_EQ(runner.Launch(LaunchGeometry()).status, LaunchStatus::kRuntimeError);
}

TEST(OpenClContext, BadDeviceIndexThrows) {
  const size_t count = ListOpenClDevices().size();
  try {
    OpenClContext context(99);
    FAIL() << "expected an Error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(error.what()),
              "no OpenCL device opencl:99 (" + std::to_string(count) + " devices present)");
  }
  EXPECT_THROW(OpenClContext(-1), Error);
}

TEST(OpenClContext, BufferMisuseThrows) {
  OpenClContext context(0);
  EXPECT_THROW(context.Allocate(0), Error);
  OpenClBuffer small = context.Allocate(16);
  std::vector<char> host(32);
  EXPECT_THROW(context.Write(small, host.data(), 32), Error);
  EXPECT_THROW(context.Read(small, host.data(), 32), Error);
  EXPECT_THROW(context.Write(OpenClBuffer(), host.data(), 4), Error);

  OpenClContext other(0);
  EXPECT_THROW(other.Write(small, host.data(), 16), Error);
  OpenClBuildResult build = other.Build(kTwoDims, "");
  ASSERT_TRUE(build.ok);
  EXPECT_THROW(OpenClKernel(context, build.program, "fill_index", {small}), Error);
  EXPECT_THROW(OpenClKernel(context, OpenClProgram(), "fill_index", {small}), Error);
}

}  // namespace
}  // namespace beast::harness
