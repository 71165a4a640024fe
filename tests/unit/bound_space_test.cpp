// BoundSpace: counts and enumerations checked against a brute-force filter,
// pruning reports, defaults, membership and instantiation.
#include "beast/bound_space.hpp"

#include <gtest/gtest.h>

#include "space_test_util.hpp"

namespace beast {
namespace {

using testing::BruteForce;
using testing::Keys;
using testing::TempTemplates;
using testing::TestDevice;

// Value sets of every form, a dependent one, derived values, and constraints
// with Python's / // % on negative and float values, chains and a division
// that can be by zero.
const char kTrickySpace[] = R"YAML(op: gemm
source: tricky.cl.j2
kernel: k
parameters:
  - {name: A, values: [-3, -1, 0, 2, 5, 7.5], default: 2}
  - {name: B, range: [-2, "M // 100 + 1"], default: 1}
  - {name: C, pow2: [2, 32], default: 4}
  - {name: D, range: [0, "C + 1", 2], default: 0}
derived:
  - {name: E, expr: "A * C - B"}
  - {name: F, expr: "E // 3"}
constraints:
  - expr: "A % 3 != 1"
    kind: hard
  - expr: "-2 < B <= C // 4 < 8"
    kind: hard
  - expr: "E / C >= -1.5"
    kind: soft
  - expr: "F % -4 != -1"
    kind: soft
  - expr: "C % D == 0"
    kind: hard
  - expr: "(A // 2) * 2 != A or B != 0"
    kind: soft
launch:
  global: [1]
  local: [1]
)YAML";

TEST(BoundSpace, MatchesBruteForceOnATrickySpace) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("tricky", kTrickySpace));
  Problem problem = Problem::Parse("gemm:M=350,N=8,K=8");
  BoundSpace space(spec, problem, TestDevice());
  std::vector<std::string> expected = BruteForce(spec, problem, TestDevice());
  EXPECT_EQ(Keys(space.Enumerate()), expected);
  EXPECT_EQ(space.Count(), expected.size());
  EXPECT_EQ(space.RawSize(), BruteForce(spec, problem, TestDevice(), 0).size());
  SpaceReport report = space.Explain();
  ASSERT_EQ(report.constraints.size(), 6u);
  for (int c = 0; c < 6; ++c) {
    EXPECT_EQ(report.constraints[c].remaining, BruteForce(spec, problem, TestDevice(), c + 1).size()) << c;
  }
  EXPECT_EQ(report.valid, expected.size());
  EXPECT_GT(report.valid, 0u);
  EXPECT_EQ(report.constraints[0].checked_at, "A");
  EXPECT_TRUE(report.constraints[0].prefilter);
  EXPECT_EQ(report.constraints[4].checked_at, "D");
  EXPECT_GT(report.constraints[4].invalid_eval, 0u);  // D == 0: C % D divides by zero
  EXPECT_EQ(report.constraints[1].checked_at, "C");
  EXPECT_EQ(report.constraints[5].checked_at, "B");
}

TEST(BoundSpace, DivisionByZeroMakesThePointInvalidAndIsCounted) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("div", R"YAML(op: gemm
source: div.cl.j2
kernel: k
parameters:
  - {name: X, range: [0, 4], default: 1}
  - {name: Y, range: [0, 3], default: 1}
constraints:
  - "X + Y >= 0"
  - "M % (X * Y) == 0"
launch: {global: [1], local: [1]}
)YAML"));
  Problem problem = Problem::Parse("gemm:M=6,N=1,K=1");
  BoundSpace space(spec, problem, TestDevice());
  // Valid (X, Y): X*Y divides 6 and X*Y != 0: (1,1) (1,2) (2,1) (3,1) (3,2).
  EXPECT_EQ(Keys(space.Enumerate()),
            (std::vector<std::string>{"X=1,Y=1", "X=1,Y=2", "X=2,Y=1", "X=3,Y=1", "X=3,Y=2"}));
  SpaceReport report = space.Explain();
  EXPECT_EQ(report.raw, 12u);
  // X == 0 (3 points) or Y == 0 (3 more) divide by zero; (2, 2) leaves 6 % 4 == 2.
  EXPECT_EQ(report.constraints[1].removed, 7u);
  EXPECT_EQ(report.constraints[1].invalid_eval, 6u);
}

TEST(BoundSpace, ExplainsWhichConstraintEmptiedTheSpace) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("empty", R"YAML(op: gemm
source: empty.cl.j2
kernel: k
parameters:
  - {name: T, pow2: [1, 64], default: 8}
constraints:
  - expr: "T >= 4"
  - expr: "T * 128 <= M"
    kind: soft
launch: {global: [M], local: [T]}
)YAML"));
  BoundSpace space(spec, Problem::Parse("gemm:M=256,N=1,K=1"), TestDevice());
  EXPECT_EQ(space.Count(), 0u);
  SpaceReport report = space.Explain();
  EXPECT_EQ(report.emptied_by, 1);
  EXPECT_EQ(WhyEmpty(report), "soft constraint \"T * 128 <= M\" (" + spec.space_path + ":8) removed the last configs");
  BindOptions ignore_soft;
  ignore_soft.ignore_soft = true;
  BoundSpace relaxed(spec, Problem::Parse("gemm:M=256,N=1,K=1"), TestDevice(), ignore_soft);
  EXPECT_EQ(Keys(relaxed.Enumerate()), (std::vector<std::string>{"T=4", "T=8", "T=16", "T=32", "T=64"}));
}

TEST(BoundSpace, DefaultCheckAndInstantiate) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("inst", R"YAML(op: gemm
source: inst.cl.j2
kernel: k
parameters:
  - {name: TM, values: [16, 32, 64], default: 32}
  - {name: WM, values: [1, 2, 4], default: 2}
derived:
  - {name: THREADS, expr: "TM // WM"}
constraints:
  - expr: "THREADS <= device_max_work_group_size"
    class: hardware
  - "M % TM == 0"
launch:
  global: ["M // TM * THREADS", "ceil_div(N, 3)"]
  local: [THREADS]
)YAML"));
  Problem problem = Problem::Parse("gemm:M=128,N=10,K=4");
  DeviceInfo device = TestDevice();
  device.limits.max_work_group_size = 16;
  BoundSpace space(spec, problem, device);
  Config d = space.DefaultConfig();
  EXPECT_EQ(d.Key(), "TM=32,WM=2");
  std::string why;
  EXPECT_TRUE(space.Check(d, &why)) << why;
  EXPECT_FALSE(space.Check(Config::ParseKey("TM=64,WM=1"), &why));
  EXPECT_EQ(why, "violates hard constraint \"THREADS <= device_max_work_group_size\" (" + spec.space_path + ":10)");
  EXPECT_FALSE(space.Check(Config::ParseKey("TM=48,WM=1"), &why));
  EXPECT_EQ(why, "TM=48 is not in its value set");
  Instance inst = space.Instantiate(d);
  EXPECT_EQ(inst.global[0], 64u);  // 128 / 32 * 16
  EXPECT_EQ(inst.global[1], 4u);
  EXPECT_EQ(inst.global[2], 1u);
  EXPECT_EQ(inst.local[0], 16u);
  bool has_threads = false;
  for (const auto& [name, value] : inst.vars) has_threads = has_threads || (name == "THREADS" && value.i == 16);
  EXPECT_TRUE(has_threads);
}

TEST(BoundSpace, RealTemplatesMatchBruteForceForTheDefaultProblems) {
  const std::string dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  DeviceInfo device = TestDevice();
  for (const auto& [name, problem_text] :
       std::vector<std::pair<std::string, std::string>>{
           {"conv2d/direct_nchw", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"},
           {"gemm/tiled", "gemm:M=512,N=512,K=512"}}) {
    SpaceSpec spec = SpaceSpec::Load(dir, name);
    Problem problem = Problem::Parse(problem_text);
    BoundSpace space(spec, problem, device);
    std::vector<std::string> expected = BruteForce(spec, problem, device);
    EXPECT_EQ(space.Count(), expected.size()) << name;
    EXPECT_GE(space.Count(), 200u) << name;
    EXPECT_EQ(Keys(space.Enumerate()), expected) << name;
    std::string why;
    EXPECT_TRUE(space.Check(space.DefaultConfig(), &why)) << name << ": " << why;
  }
}

}  // namespace
}  // namespace beast
