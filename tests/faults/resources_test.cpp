// Problems the device or the host cannot hold, refused for real before any
// compile (issue 16): a buffer above the device's largest allocation (read
// from `beast devices --json`, so the test fits any OpenCL device), a size
// that overflows 64 bits, and a CPU reference above the host's memory —
// each one line naming the buffer, its size and the limit, exit 2, and no
// database written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CommandResult;
using testing::FreshTestDir;
using testing::JsonOf;
using testing::RunCommand;

class Resources : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("resources"); }
  void TearDown() override { fs::remove_all(dir_); }

  CommandResult Tune(const std::string& problem) const {
    return RunCommand(BeastBinary() + " tune --template gemm/tiled --problem " + problem +
                          " --device opencl:0 --db " + (dir_ / "beast.db").string() +
                          " --max-configs 2 --baselines none --quiet 2>&1 >/dev/null",
                      false);
  }
  fs::path dir_;
};

TEST_F(Resources, ABufferAboveTheLargestAllocationIsRefusedNamingIt) {
  const nlohmann::json devices =
      JsonOf(RunCommand(BeastBinary() + " devices --json", false).output);
  ASSERT_TRUE(devices.is_object() && devices["opencl"].is_array() && !devices["opencl"].empty());
  const int64_t max_alloc = devices["opencl"][0]["max_alloc_bytes"].get<int64_t>();
  ASSERT_GT(max_alloc, 0);
  // C = M x N floats, just above the limit; A and B are M x 1 and 1 x N.
  const int64_t side = static_cast<int64_t>(std::ceil(std::sqrt(max_alloc / 4.0))) + 1;
  const std::string problem = "gemm:M=" + std::to_string(side) + ",N=" + std::to_string(side) +
                              ",K=1,transA=0,transB=0,dtype=f32";
  CommandResult refused = Tune(problem);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.output.rfind("beast tune: problem " + problem + ": buffer C needs ", 0), 0u)
      << refused.output;
  EXPECT_NE(refused.output.find(", more than the largest allocation opencl:0 allows ("),
            std::string::npos)
      << refused.output;
  EXPECT_EQ(std::count(refused.output.begin(), refused.output.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(dir_ / "beast.db"));
}

TEST_F(Resources, ASizeBeyondSixtyFourBitsIsRefusedNamingTheBuffer) {
  const std::string problem = "gemm:M=2147483647,N=2147483647,K=1,transA=0,transB=0,dtype=f32";
  CommandResult refused = Tune(problem);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.output,
            "beast tune: problem " + problem + ": buffer C needs more than 2^63 bytes\n");
  EXPECT_FALSE(fs::exists(dir_ / "beast.db"));
}

TEST_F(Resources, AConvolutionOfTwoBillionImagesIsRefusedBeforeAnyCompile) {
  const std::string problem =
      "conv2d:N=2147483647,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32";
  CommandResult refused =
      RunCommand(BeastBinary() + " tune --template conv2d/direct_nchw --problem '" + problem +
                     "' --device opencl:0 --db " + (dir_ / "beast.db").string() +
                     " --max-configs 2 --baselines none --quiet 2>&1 >/dev/null",
                 false);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find(": buffer x (input) needs 1.7 PB, more than the largest "
                                "allocation opencl:0 allows ("),
            std::string::npos)
      << refused.output;
  EXPECT_FALSE(fs::exists(dir_ / "beast.db"));
}

}  // namespace
}  // namespace beast
