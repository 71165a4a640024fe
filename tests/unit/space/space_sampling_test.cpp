// Positions and samples of bound spaces: At and IndexOf agree with the order
// of ForEach on every point of small spaces and on random points of a large
// one, misuse throws, and Sample is reproducible, distinct and uniform.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "beast/core/error.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/t1_import.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::BruteForce;
using testing::Keys;
using testing::TempTemplates;
using testing::TestDevice;

// Negative and float values, a value set read from an earlier parameter, a
// derived chain, and / // % and chained comparisons.
const char kMixedSpace[] = R"YAML(op: gemm
source: mixed.cl.j2
kernel: k
parameters:
  - {name: P, values: [-4, -1, 0, 3, 6, 2.5], default: 3}
  - {name: Q, pow2: [1, 16], default: 4}
  - {name: R, range: ["-Q", "Q + 1", 3], default: 0}
  - {name: S, values: [0, 1, 2], default: 0}
derived:
  - {name: D1, expr: "P * Q"}
  - {name: D2, expr: "D1 // 4 - R"}
  - {name: D3, expr: "D2 % 5 + S / 2"}
constraints:
  - "-6 <= D2 < 12"
  - "D3 != 1.5"
  - "R % Q != 1 or S == 0"
  - "P / Q > -2"
launch: {global: [1], local: [1]}
)YAML";

// Every position of the space: At, IndexOf and the order of Enumerate agree.
void ExpectRoundTrips(const BoundSpace& space, const std::string& what) {
  std::vector<Config> all = space.Enumerate();
  ASSERT_EQ(all.size(), space.Count()) << what;
  for (uint64_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(space.At(i).Key(), all[i].Key()) << what << " index " << i;
    ASSERT_EQ(space.IndexOf(all[i]), i) << what << " " << all[i].Key();
  }
}

TEST(SpaceSampling, IndexRoundTripsOverEveryPointOfSmallSpaces) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("mixed", kMixedSpace));
  Problem problem = Problem::Parse("gemm:M=64,N=64,K=64");
  for (bool reorder : {true, false}) {
    BindOptions options;
    options.reorder = reorder;
    BoundSpace space(spec, problem, TestDevice(), options);
    EXPECT_EQ(Keys(space.Enumerate()),
              BruteForce(spec, problem, TestDevice(), -1, space.WalkOrder()));
    EXPECT_GT(space.Count(), 20u);
    ExpectRoundTrips(space, reorder ? "mixed, reordered" : "mixed, declared order");
  }
  const std::string dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  for (const auto& [name, problem_text] : std::vector<std::pair<std::string, std::string>>{
           {"conv2d/direct_nchw", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"},
           {"gemm/tiled", "gemm:M=512,N=512,K=512"}}) {
    BoundSpace space(SpaceSpec::Load(dir, name), Problem::Parse(problem_text), TestDevice());
    ExpectRoundTrips(space, name);
  }
  BoundSpace t1(
      LoadT1(std::string(BEAST_TEST_SOURCE_DIR) + "/tests/bench/spaces/t1/convolution_milo.json"),
      {});
  ExpectRoundTrips(t1, "convolution_milo");
}

TEST(SpaceSampling, RandomPointsOfALargeSpaceRoundTrip) {
  // 2.25e9 raw points, 54,008 valid (tests/bench/spaces/bench/xgemm).
  SpaceSpec spec =
      SpaceSpec::Load(std::string(BEAST_TEST_SOURCE_DIR) + "/tests/bench/spaces", "bench/xgemm");
  DeviceInfo device = TestDevice();
  device.limits.max_work_group_size = 1024;
  device.limits.local_mem_bytes = 49152;
  device.limits.compute_units = 80;
  BoundSpace space(spec, Problem::Parse("gemm:M=512,N=512,K=512"), device);
  ASSERT_EQ(space.Count(), 54008u);
  std::vector<Config> all = space.Enumerate();
  ASSERT_EQ(all.size(), 54008u);
  uint64_t state = 12345;
  for (int k = 0; k < 300; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t i = (state >> 33) % all.size();
    Config c = space.At(i);
    EXPECT_EQ(c.Key(), all[i].Key()) << i;
    EXPECT_EQ(space.IndexOf(c), i);
    std::string why;
    EXPECT_TRUE(space.Check(c, &why)) << why;
  }
  EXPECT_EQ(space.At(0).Key(), all.front().Key());
  EXPECT_EQ(space.At(all.size() - 1).Key(), all.back().Key());
}

TEST(SpaceSampling, MisuseThrows) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("mixed", kMixedSpace));
  BoundSpace space(spec, Problem::Parse("gemm:M=64,N=64,K=64"), TestDevice());
  uint64_t count = space.Count();
  try {
    space.At(count);
    FAIL() << "At(Count()) returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    EXPECT_EQ(std::string(e.what()), "index " + std::to_string(count) +
                                         " is past the end of the space of t/mixed (" +
                                         std::to_string(count) + " configs)");
  }
  try {
    space.IndexOf(Config::ParseKey("P=3,Q=4,R=5,S=0"));
    FAIL() << "IndexOf of a config outside the space returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(e.what()),
              "config P=3,Q=4,R=5,S=0 is not in the space of t/mixed: R=5 is not in its value set");
  }
  try {
    space.IndexOf(Config::ParseKey("P=3,Q=4"));
    FAIL() << "IndexOf of a config with missing parameters returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(
        std::string(e.what()),
        "config P=3,Q=4 is not in the space of t/mixed: the config has 2 parameters, the space 4");
  }
  // P / Q = -4 fails the last constraint (Q = 1: R's only value is -1).
  try {
    space.IndexOf(Config::ParseKey("P=-4,Q=1,R=-1,S=0"));
    FAIL() << "IndexOf of a config violating a constraint returned";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "config P=-4,Q=1,R=-1,S=0 is not in the space of t/mixed: violates hard "
              "constraint \"P / Q > -2\" (" +
                  spec.space_path + ":17)");
  }
  // 2.5 * 4 = 10.0, 10.0 // 4 - 2 = 0.0, 0.0 % 5 + 1 / 2 = 0.5, 2.5 / 4 > -2.
  Config valid = Config::ParseKey("P=2.5,Q=4,R=2,S=1");
  std::string why;
  ASSERT_TRUE(space.Check(valid, &why)) << why;
  EXPECT_EQ(space.At(space.IndexOf(valid)).Key(), valid.Key());
}

TEST(SpaceSampling, SampleIsReproducibleDistinctAndInOrder) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("mixed", kMixedSpace));
  BoundSpace space(spec, Problem::Parse("gemm:M=64,N=64,K=64"), TestDevice());
  std::vector<Config> a = space.Sample(10, 7);
  std::vector<Config> b = space.Sample(10, 7);
  ASSERT_EQ(a.size(), 10u);
  EXPECT_EQ(Keys(a), Keys(b));
  EXPECT_NE(Keys(a), Keys(space.Sample(10, 8)));
  std::vector<std::string> keys = Keys(a);
  std::set<std::string> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), 10u);
  for (size_t i = 1; i < a.size(); ++i) EXPECT_LT(space.IndexOf(a[i - 1]), space.IndexOf(a[i]));
  // Asking for as many as there are, or more, gives all of them in order.
  EXPECT_EQ(Keys(space.Sample(space.Count(), 3)), Keys(space.Enumerate()));
  EXPECT_EQ(Keys(space.Sample(space.Count() + 5, 3)), Keys(space.Enumerate()));
  EXPECT_TRUE(space.Sample(0, 3).empty());
}

TEST(SpaceSampling, SampleIsUniform) {
  // Subtrees of different sizes: A picks 1, 2, 4 or 8 values of B, and C
  // doubles the points where B % 3 == 0; A * B != 8 removes two. 20 points.
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("uneven", R"YAML(op: gemm
source: uneven.cl.j2
kernel: k
parameters:
  - {name: A, pow2: [1, 8], default: 1}
  - {name: B, range: [0, A], default: 0}
  - {name: C, values: [0, 1], default: 0}
constraints:
  - "C == 0 or B % 3 == 0"
  - "A * B != 8"
launch: {global: [1], local: [1]}
)YAML"));
  Problem problem = Problem::Parse("gemm:M=1,N=1,K=1");
  BoundSpace space(spec, problem, TestDevice());
  ASSERT_EQ(space.Count(), 20u);
  EXPECT_EQ(space.Count(), BruteForce(spec, problem, TestDevice()).size());
  std::map<std::string, int> seen;
  const int kDraws = 20000;
  for (int seed = 0; seed < kDraws; ++seed) {
    std::vector<Config> one = space.Sample(1, static_cast<uint64_t>(seed));
    ASSERT_EQ(one.size(), 1u);
    ++seen[one[0].Key()];
  }
  ASSERT_EQ(seen.size(), 20u);
  double expected = kDraws / 20.0, chi2 = 0;
  for (const auto& [key, n] : seen) chi2 += (n - expected) * (n - expected) / expected;
  RecordProperty("chi2", std::to_string(chi2));
  EXPECT_LT(chi2, 43.82);  // the 0.999 quantile of chi-square with 19 degrees of freedom
}

}  // namespace
}  // namespace beast
