// beast space --t1 FILE: a T1 file is its own space, so the table names the
// file once and prints no template folder, problem or device lines; options
// one form would ignore are refused in one line.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/command_runner.hpp"

namespace beast {
namespace {

TEST(SpaceCli, AT1FileIsNamedOnceWithNoProblemOrDeviceLine) {
  const std::string file =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/bench/spaces/t1/convolution_milo.json";
  testing::CommandResult r =
      testing::RunCommand(testing::BeastBinary() + " space --t1 " + file, false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> lines;
  std::stringstream in(r.output);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u) << r.output;
  EXPECT_EQ(lines[0], "T1 file " + file);
  EXPECT_EQ(lines[1], "raw space: 10240 points over 10 parameters");
  EXPECT_EQ(lines[2].rfind("  #  kind  class", 0), 0u) << lines[2];
  EXPECT_EQ(lines.back().rfind("valid: ", 0), 0u) << lines.back();
  EXPECT_EQ(r.output.find("\ndevice "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("\nproblem "), std::string::npos) << r.output;
}

TEST(SpaceCli, OptionsTheFormWouldIgnoreAreOneLine) {
  const std::string t1 =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/bench/spaces/t1/convolution_milo.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--t1 " + t1 + " --device bogus",
       "beast space: --t1 takes no --device (a T1 file holds its space whole)\n"},
      {"--t1 " + t1 + " --problem gemm:M=1,N=1,K=1",
       "beast space: --t1 takes no --problem (a T1 file holds its space whole)\n"},
      {"gemm/tiled --problem gemm:M=64,N=64,K=64 --count", "beast space: --count goes with --t1\n"},
      {"gemm/tiled --problem gemm:M=64,N=64,K=64 --list -3",
       "beast space: --list must not be negative\n"},
  };
  for (const auto& [args, line] : cases) {
    testing::CommandResult r = testing::RunCommand(testing::BeastBinary() + " space " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.output, line) << args;
  }
}

}  // namespace
}  // namespace beast
