// beast devices names the compiler of every device it lists, as the harness
// queries it (the version each measurement records): the fourth line of the
// device's block in the table (after its header and two lines of limits),
// and "compiler" / "compiler_version" in --json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/cuda/cuda_driver.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

using testing::BeastBinary;
using testing::RunCommand;

// The fourth line of the block that starts with the device's id, or "".
std::string FourthLine(const std::string& text, const std::string& id) {
  size_t at = text.rfind(id + " ", 0) == 0 ? 0 : text.find("\n" + id + " ");
  if (at == std::string::npos) return "";
  if (at > 0) ++at;
  for (int line = 0; line < 3; ++line) {
    at = text.find('\n', at);
    if (at == std::string::npos) return "";
    ++at;
  }
  return text.substr(at, text.find('\n', at) - at);
}

void ExpectCompilerShown(const DeviceInfo& d, const std::string& text, const std::string& json,
                         const std::string& expected_line) {
  EXPECT_EQ(FourthLine(text, d.Id()), expected_line) << text;
  const nlohmann::json devices = nlohmann::json::parse(json);
  const nlohmann::json& list =
      d.backend == Backend::kOpenCL ? devices.at("opencl") : devices.at("cuda").at("devices");
  const nlohmann::json* object = nullptr;
  for (const auto& entry : list) object = entry.at("id") == d.Id() ? &entry : object;
  ASSERT_NE(object, nullptr) << json;
  EXPECT_EQ(object->at("compiler"), d.compiler) << *object;
  EXPECT_EQ(object->at("compiler_version"), d.compiler_version) << *object;
}

TEST(DevicesCli, ShowsEachDevicesCompiler) {
  std::vector<DeviceInfo> opencl = harness::ListOpenClDevices();
  harness::CudaProbe cuda = harness::ProbeCuda();
  if (opencl.empty() && cuda.devices.empty()) GTEST_SKIP() << "no OpenCL device and no CUDA GPU";
  auto text = RunCommand(BeastBinary() + " devices", /*merge_stderr=*/false);
  auto json = RunCommand(BeastBinary() + " devices --json", /*merge_stderr=*/false);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  ASSERT_EQ(json.exit_code, 0) << json.output;
  for (const DeviceInfo& d : opencl) {
    // The platform's name and version: what a measurement on it records.
    EXPECT_EQ(d.compiler, "opencl");
    EXPECT_FALSE(d.compiler_version.empty()) << d.Id();
    ExpectCompilerShown(d, text.output, json.output,
                        "          compiler opencl: " + d.compiler_version);
  }
  for (const DeviceInfo& d : cuda.devices) {
    std::string version = d.compiler_version.empty() ? "none (this beast was built without NVRTC)"
                                                     : d.compiler_version;
    ExpectCompilerShown(d, text.output, json.output, "          compiler nvrtc: " + version);
  }
}

}  // namespace
}  // namespace beast
