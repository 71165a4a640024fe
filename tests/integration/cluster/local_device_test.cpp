// cuda:local / opencl:local (beast tune under mpirun): the node's device of a
// rank's place among the node's device ranks, modulo the devices present (on
// PoCL here); outside mpirun resolving one is one line; other selectors pass
// through unchanged.
#include <gtest/gtest.h>

#include <string>

#include "beast/core/error.hpp"
#include "harness/devices/device_resolver.hpp"
#include "harness/opencl/opencl_devices.hpp"

namespace beast {
namespace {

TEST(LocalDevice, IsTheDeviceOfTheRanksPlaceModuloTheDevicesPresent) {
  const int count = static_cast<int>(harness::ListOpenClDevices().size());
  if (count == 0) GTEST_SKIP() << "no OpenCL device";
  const DeviceSelector local = DeviceSelector::Parse("opencl:local");
  for (int place : {0, 1, 5}) {
    const DeviceSelector chosen = LocalDevice(local, place);
    EXPECT_FALSE(chosen.local);
    EXPECT_EQ(chosen.backend, Backend::kOpenCL);
    EXPECT_EQ(chosen.index, place % count) << place;
    EXPECT_EQ(ResolveDevice(chosen).Id(), "opencl:" + std::to_string(place % count));
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
