// A conv2d template meets only the problems of the layouts it takes; the
// pairs of another layout are named in the summary (text and JSON), not
// dropped without a word.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/command_runner.hpp"

namespace beast {
namespace {

TEST(OtherLayout, PairsOfALayoutTheTemplateDoesNotTakeAreNamed) {
  const std::filesystem::path dir = testing::FreshTestDir("other_layout");
  const std::string shape =
      "conv2d:N=1,C=4,H=6,W=6,K=4,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,"
      "dilation_w=1,groups=1,layout=";
  const std::string nchw = shape + "NCHW,dtype=f32", nhwc = shape + "NHWC,dtype=f32";
  const std::string tune = testing::BeastBinary() +
                           " tune --template conv2d/direct_nchw --template conv2d/direct_nhwc "
                           "--problem " +
                           nchw + " --problem " + nhwc + " --db " + (dir / "beast.db").string() +
                           " --max-configs 2 --max-reps 3 --confirm-top 0 --baselines none "
                           "--no-cache";
  testing::CommandResult json = testing::RunCommand(tune + " --json", false);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json summary = testing::JsonOf(json.output);
  EXPECT_EQ(summary["other_layout"], nlohmann::json::array({
                                         "conv2d/direct_nchw takes NCHW, not " + nhwc,
                                         "conv2d/direct_nhwc takes NHWC, not " + nchw,
                                     }))
      << json.output;
  ASSERT_EQ(summary["pairs"].size(), 2u);
  testing::CommandResult text = testing::RunCommand(tune, false);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("\nnot tuned, other layout: conv2d/direct_nchw takes NCHW, not " +
                             nhwc + "\n"),
            std::string::npos)
      << text.output;
  // A template that takes none of the problems is refused, saying what it takes.
  testing::CommandResult none = testing::RunCommand(
      testing::BeastBinary() + " tune --template conv2d/direct_nchw --problem " + nhwc + " --db " +
          (dir / "never.db").string() + " 2>&1",
      false);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.output,
            "beast tune: template conv2d/direct_nchw fits none of the problems given (it takes "
            "conv2d problems of layout NCHW)\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace beast
