// beast space --t1 FILE: a T1 file is its own space, so the table names the
// file once and prints no template folder, problem or device lines.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
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

}  // namespace
}  // namespace beast
