// Device selectors, expression variables, limits JSON and the spec tables of
// devices that are not present.
#include "beast/problem/device.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "beast/core/error.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "support/test_dir.hpp"

namespace beast {
namespace {

const std::string kConstraints = std::string(BEAST_TEST_SOURCE_DIR) + "/constraints";

TEST(DeviceSelector, ParsesEveryForm) {
  DeviceSelector a = DeviceSelector::Parse("opencl:3");
  EXPECT_EQ(a.backend, Backend::kOpenCL);
  EXPECT_EQ(a.index, 3);
  DeviceSelector b = DeviceSelector::Parse("cuda:sm_90");
  EXPECT_EQ(b.backend, Backend::kCuda);
  EXPECT_EQ(b.arch, "sm_90");
  EXPECT_EQ(b.index, -1);
  EXPECT_FALSE(b.local);
  // Under mpirun: the node's device of the rank's place.
  DeviceSelector c = DeviceSelector::Parse("cuda:local");
  EXPECT_EQ(c.backend, Backend::kCuda);
  EXPECT_TRUE(c.local);
  EXPECT_TRUE(c.arch.empty());
  EXPECT_TRUE(DeviceSelector::Parse("opencl:local").local);
  EXPECT_FALSE(a.local);
  for (const char* bad :
       {"opencl", "opencl:", "opencl:x", "vulkan:0", "cuda:sm_", "cuda:sm_9a", "cuda:locals"}) {
    EXPECT_THROW(DeviceSelector::Parse(bad), Error) << bad;
  }
  try {
    DeviceSelector::Parse("metal:0");
    ADD_FAILURE() << "expected DeviceSelector::Parse(\"metal:0\") to throw";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "device \"metal:0\": unknown backend \"metal\" (expected opencl:N, cuda:N, cuda:sm_XX "
        "or, under mpirun, cuda:local)");
  }
}

TEST(DeviceLimits, JsonRoundTrip) {
  DeviceLimits l;
  l.max_work_group_size = 1024;
  l.max_work_item_sizes[0] = 1024;
  l.max_work_item_sizes[1] = 512;
  l.max_work_item_sizes[2] = 64;
  l.local_mem_bytes = 49152;
  l.compute_units = 108;
  l.warp_size = 32;
  l.peak_gflops = 19500.5;
  DeviceLimits back = DeviceLimitsFromJson(DeviceLimitsToJson(l));
  EXPECT_EQ(back.max_work_group_size, 1024);
  EXPECT_EQ(back.max_work_item_sizes[0], 1024);
  EXPECT_EQ(back.max_work_item_sizes[1], 512);
  EXPECT_EQ(back.max_work_item_sizes[2], 64);
  EXPECT_EQ(back.local_mem_bytes, 49152);
  EXPECT_EQ(back.compute_units, 108);
  EXPECT_EQ(back.warp_size, 32);
  EXPECT_DOUBLE_EQ(back.peak_gflops, 19500.5);
  EXPECT_THROW(DeviceLimitsFromJson("[1, 2]"), Error);
}

TEST(DeviceSpecTable, ReadsHopper) {
  DeviceInfo d = LoadDeviceSpec(kConstraints, "sm_90");
  EXPECT_EQ(d.backend, Backend::kCuda);
  EXPECT_EQ(d.Id(), "cuda:sm_90");
  EXPECT_EQ(d.limits.max_work_group_size, 1024);
  EXPECT_EQ(d.limits.local_mem_bytes, 232448);
  EXPECT_EQ(d.limits.compute_units, 132);
  EXPECT_EQ(d.limits.warp_size, 32);
  EXPECT_EQ(d.Variables().at("device_max_work_item_size_2"), 64);
}

TEST(DeviceSpecTable, CoversTheIssuedArchitecturesAndNamesTheKnownOnes) {
  EXPECT_EQ(KnownDeviceSpecs(kConstraints),
            (std::vector<std::string>{"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}));
  try {
    LoadDeviceSpec(kConstraints, "sm_61");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(e.what()), "cuda:sm_61: no spec table for sm_61 in " + kConstraints +
                                         "/devices (known: sm_70 sm_75 sm_80 sm_86 sm_89 sm_90)");
  }
}

// A spec table with a bad size or a count below 1 is one line naming the
// file and line (a warp size of 0 would divide by zero in a constraint).
TEST(DeviceSpecTable, ABadOrNonPositiveSizeIsNamedWithItsLine) {
  const std::string dir = testing::FreshTestDir("device_spec_table").string();
  std::filesystem::create_directories(dir + "/devices");
  std::ifstream hopper(kConstraints + "/devices/sm_90.yaml");
  const std::string good((std::istreambuf_iterator<char>(hopper)),
                         std::istreambuf_iterator<char>());
  // The error of sm_90's table with `from` replaced by `to`, its path cut.
  auto error_of = [&](const std::string& from, const std::string& to) -> std::string {
    const size_t at = good.find(from);
    if (at == std::string::npos) return "the table has no " + from;
    std::string text = good;
    text.replace(at, from.size(), to);
    std::ofstream(dir + "/devices/sm_90.yaml") << text;
    try {
      LoadDeviceSpec(dir, "sm_90");
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadInput);
      const std::string what = e.what();
      const std::string path = dir + "/devices/sm_90.yaml:";
      return what.rfind(path, 0) == 0 ? what.substr(path.size()) : what;
    }
    return "(loaded)";
  };
  EXPECT_EQ(
      error_of("max_work_item_sizes: [1024, 1024, 64]", "max_work_item_sizes: [1024, 1024, lots]"),
      "8: max_work_item_sizes[2] must be an integer");
  EXPECT_EQ(error_of("max_work_item_sizes: [1024, 1024, 64]", "max_work_item_sizes: [1024, 0, 64]"),
            "8: max_work_item_sizes[1] must be at least 1, not 0");
  EXPECT_EQ(error_of("warp_size: 32", "warp_size: 0"), "12: warp_size must be at least 1, not 0");
  EXPECT_EQ(error_of("warp_size: 32", "warp_size: 32"), "(loaded)");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace beast
