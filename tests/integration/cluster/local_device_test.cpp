// cuda:local / opencl:local (beast tune under mpirun): the node's device of a
// rank's place among the node's device ranks (on PoCL here), and a place
// past the node's devices refused; outside mpirun resolving one is one line;
// other selectors pass through unchanged.
#include <gtest/gtest.h>

#include <string>

#include "beast/core/error.hpp"
#include "harness/devices/device_resolver.hpp"
#include "harness/opencl/opencl_devices.hpp"

namespace beast {
namespace {

TEST(LocalDevice, IsTheDeviceOfTheRanksPlaceAndNoTwoRanksShareOne) {
  const int count = static_cast<int>(harness::ListOpenClDevices().size());
  if (count == 0) GTEST_SKIP() << "no OpenCL device";
  const DeviceSelector local = DeviceSelector::Parse("opencl:local");
  for (int place = 0; place < count; ++place) {
    const DeviceSelector chosen = LocalDevice(local, place);
    EXPECT_FALSE(chosen.local);
    EXPECT_EQ(chosen.backend, Backend::kOpenCL);
    EXPECT_EQ(chosen.index, place);
    EXPECT_EQ(ResolveDevice(chosen).Id(), "opencl:" + std::to_string(place));
  }
  // One rank more than the node has devices: it would share one.
  try {
    LocalDevice(local, count);
    FAIL() << "a rank's place past the node's devices was given a device";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "opencl:local: this is device rank " + std::to_string(count + 1) +
                  " of its node, which has " + std::to_string(count) + " opencl device" +
                  (count == 1 ? "" : "s") +
                  ": start at most one device rank per device (two on one disturb each other's "
                  "times)");
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
  }
  const DeviceSelector named = DeviceSelector::Parse("opencl:0");
  EXPECT_EQ(LocalDevice(named, 7).index, 0);
}

TEST(LocalDevice, OutsideMpirunItIsOneLine) {
  try {
    ResolveDevice(DeviceSelector::Parse("cuda:local"));
    FAIL() << "cuda:local resolved outside mpirun";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cuda:local names a device by the rank's place on its node: it is for mpirun");
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
  }
}

}  // namespace
}  // namespace beast
