// The T1 spaces of Kernel Tuner's benchmark suite (tests/bench/spaces/t1):
// their valid counts, which Kernel Tuner's own Python semantics give too
// (every raw point evaluated with eval(); checked when the files were
// added), and, for the smaller ones, the brute-force filter.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "beast/core/error.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/t1_import.hpp"
#include "support/space_test_util.hpp"
#include "support/test_dir.hpp"

namespace beast {
namespace {

std::string T1(const std::string& file) {
  return std::string(BEAST_TEST_SOURCE_DIR) + "/tests/bench/spaces/t1/" + file;
}

TEST(SpaceT1, ConvolutionHas4362ValidConfigs) {
  SpaceSpec spec = LoadT1(T1("convolution_milo.json"));
  BoundSpace space(spec, {});
  EXPECT_EQ(space.RawSize(), 10240u);
  EXPECT_EQ(space.Count(), 4362u);
  std::vector<std::string> expected = testing::BruteForceFixed(spec, {}, -1, space.WalkOrder());
  EXPECT_EQ(expected.size(), 4362u);
  EXPECT_EQ(testing::Keys(space.Enumerate()), expected);
  BindOptions declared;
  declared.reorder = false;
  EXPECT_EQ(BoundSpace(spec, {}, declared).Count(), 4362u);
}

TEST(SpaceT1, DedispersionMatchesBruteForce) {
  SpaceSpec spec = LoadT1(T1("dedispersion_milo.json"));
  BoundSpace space(spec, {});
  EXPECT_EQ(space.RawSize(), 22272u);
  EXPECT_EQ(space.Count(), 11130u);
  EXPECT_EQ(testing::Keys(space.Enumerate()),
            testing::BruteForceFixed(spec, {}, -1, space.WalkOrder()));
  SpaceReport report = space.Explain();
  ASSERT_EQ(report.constraints.size(), 3u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(report.constraints[c].remaining, testing::BruteForceFixed(spec, {}, c + 1).size())
        << c;
  }
}

TEST(SpaceT1, GemmAndHotspotCounts) {
  // Too large for the brute-force filter in a unit test (663,552 and
  // 4,440,000 raw points); the declared-order walk and the reordered one
  // must agree with each other and with Kernel Tuner's count.
  BindOptions declared;
  declared.reorder = false;
  SpaceSpec gemm = LoadT1(T1("gemm_milo.json"));
  EXPECT_EQ(BoundSpace(gemm, {}).RawSize(), 663552u);
  EXPECT_EQ(BoundSpace(gemm, {}).Count(), 116928u);
  EXPECT_EQ(BoundSpace(gemm, {}, declared).Count(), 116928u);
  EXPECT_EQ(BoundSpace(gemm, {}).Count(2), 116928u);
  // hotspot_milo.json writes its value lists as Python expressions
  // (concatenation, list(range(...)), comprehensions).
  SpaceSpec hotspot = LoadT1(T1("hotspot_milo.json"));
  EXPECT_EQ(BoundSpace(hotspot, {}).RawSize(), 4440000u);
  EXPECT_EQ(BoundSpace(hotspot, {}).Count(), 82984u);
  EXPECT_EQ(BoundSpace(hotspot, {}, declared).Count(), 82984u);
  EXPECT_EQ(BoundSpace(hotspot, {}).Count(2), 82984u);
}

// A small T1 file of one parameter, X, written with `param` (its Type,
// Values and Default as JSON), in a fresh folder.
std::string SmallT1(const std::filesystem::path& dir, const std::string& param) {
  const std::string path = (dir / "t1.json").string();
  std::ofstream(path) << R"({"General": {"BenchmarkName": "small"}, "ConfigurationSpace": {)"
                      << R"("TuningParameters": [{"Name": "X", )" << param
                      << R"(}], "Conditions": []}})";
  return path;
}

TEST(SpaceT1, JsonBooleansAreValuesAndADefaultThatIsNoNumberIsNamedWithItsFile) {
  const std::filesystem::path dir = testing::FreshTestDir("space_t1");
  const std::string path =
      SmallT1(dir, R"("Type": "bool", "Values": [true, false], "Default": false)");
  SpaceSpec spec = LoadT1(path);
  EXPECT_EQ(BoundSpace(spec, {}).Count(), 2u);
  auto refused = [&](const std::string& param) {
    try {
      LoadT1(SmallT1(dir, param));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused(R"("Type": "int", "Values": [1, 2, 4], "Default": "X+")"),
            path +
                ": not a valid T1 file: the Default of X is not a number: expression \"X+\": "
                "position 3: expected a value");
  EXPECT_EQ(refused(R"("Type": "int", "Values": [1, 2, 4], "Default": "Y")"),
            path + ": not a valid T1 file: the Default of X is not a number: Y");
  // Kernel Tuner's benchmark hub has Defaults outside the Values: taken.
  EXPECT_EQ(refused(R"("Type": "int", "Values": [1, 2, 4], "Default": 8)"), "accepted");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace beast
