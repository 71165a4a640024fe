// BoundSpace: counts and enumerations checked against a brute-force filter,
// pruning reports, defaults, membership and instantiation.
#include "beast/space/bound_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::BruteForce;
using testing::Keys;
using testing::kTrickySpace;
using testing::TempTemplates;
using testing::TestDevice;

// The parameter of `order` that comes last among `names`.
std::string LastIn(const std::vector<std::string>& order, const std::vector<std::string>& names) {
  std::string last;
  for (const auto& o : order) {
    if (std::find(names.begin(), names.end(), o) != names.end()) last = o;
  }
  return last;
}

TEST(BoundSpace, MatchesBruteForceOnATrickySpace) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("tricky", kTrickySpace));
  Problem problem = Problem::Parse("gemm:M=350,N=8,K=8");
  BindOptions declared;
  declared.reorder = false;
  BoundSpace space(spec, problem, TestDevice(), declared);
  EXPECT_EQ(space.WalkOrder(), (std::vector<std::string>{"A", "B", "C", "D"}));
  std::vector<std::string> expected = BruteForce(spec, problem, TestDevice());
  EXPECT_EQ(Keys(space.Enumerate()), expected);
  EXPECT_EQ(space.Count(), expected.size());
  EXPECT_EQ(space.RawSize(), BruteForce(spec, problem, TestDevice(), 0).size());
  SpaceReport report = space.Explain();
  ASSERT_EQ(report.constraints.size(), 6u);
  for (int c = 0; c < 6; ++c) {
    EXPECT_EQ(report.constraints[c].remaining,
              BruteForce(spec, problem, TestDevice(), c + 1).size())
        << c;
  }
  EXPECT_EQ(report.valid, expected.size());
  EXPECT_GT(report.valid, 0u);
  EXPECT_EQ(report.constraints[0].checked_at, "A");
  EXPECT_TRUE(report.constraints[0].prefilter);
  EXPECT_EQ(report.constraints[4].checked_at, "D");
  EXPECT_GT(report.constraints[4].invalid_eval, 0u);  // D == 0: C % D divides by zero
  EXPECT_EQ(report.constraints[1].checked_at, "C");
  EXPECT_EQ(report.constraints[5].checked_at, "B");

  // Reordered (the default): same points, listed in walk order; each
  // constraint checked where the last of its parameters is bound.
  BoundSpace reordered(spec, problem, TestDevice());
  std::vector<std::string> order = reordered.WalkOrder();
  EXPECT_EQ(Keys(reordered.Enumerate()), BruteForce(spec, problem, TestDevice(), -1, order));
  EXPECT_EQ(reordered.Count(), expected.size());
  EXPECT_EQ(reordered.RawSize(), space.RawSize());
  SpaceReport again = reordered.Explain();
  EXPECT_EQ(again.valid, expected.size());
  const std::vector<std::vector<std::string>> names = {{"A"},           {"B", "C"}, {"A", "B", "C"},
                                                       {"A", "B", "C"}, {"C", "D"}, {"A", "B"}};
  for (int c = 0; c < 6; ++c) {
    EXPECT_EQ(again.constraints[c].remaining, report.constraints[c].remaining) << c;
    EXPECT_EQ(again.constraints[c].checked_at, LastIn(order, names[c])) << c;
  }
  EXPECT_EQ(again.constraints[4].invalid_eval > 0, true);
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
  BindOptions declared;
  declared.reorder = false;
  BoundSpace space(spec, problem, TestDevice(), declared);
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
  EXPECT_EQ(WhyEmpty(report), "soft constraint \"T * 128 <= M\" (" + spec.space_path +
                                  ":8) removed the last configs (before it: hard \"T >= 4\" 2); "
                                  "soft constraints removed configs: --ignore-soft drops the "
                                  "template's");
  BindOptions ignore_soft;
  ignore_soft.ignore_soft = true;
  BoundSpace relaxed(spec, Problem::Parse("gemm:M=256,N=1,K=1"), TestDevice(), ignore_soft);
  EXPECT_EQ(Keys(relaxed.Enumerate()),
            (std::vector<std::string>{"T=4", "T=8", "T=16", "T=32", "T=64"}));
}

// A derived value that reads no parameter is computed before the checks of
// the problem and device, which may read it: BIG = M * N = 16384 here, so
// "BIG < 100" leaves nothing (it read 0 and kept every config), as Check
// agrees.
TEST(BoundSpace, ChecksOnAProblemOnlyDerivedValueSeeItsValue) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("big", R"YAML(op: gemm
source: big.cl.j2
kernel: k
parameters:
  - {name: A, values: [1, 2], default: 1}
derived:
  - {name: BIG, expr: M * N}
constraints:
  - "BIG < 100 or A == 2"
  - "BIG >= 100"
launch: {global: [1], local: [1]}
)YAML"));
  BoundSpace small(spec, Problem::Parse("gemm:M=8,N=8,K=1"), TestDevice());
  EXPECT_EQ(small.Count(), 0u);  // BIG = 64 fails the second
  BoundSpace big(spec, Problem::Parse("gemm:M=128,N=128,K=1"), TestDevice());
  EXPECT_EQ(Keys(big.Enumerate()), (std::vector<std::string>{"A=2"}));
  EXPECT_EQ(big.Count(), 1u);
}

// A value listed or computed twice is one point (M // 64 = 2 here), and
// bounds near the int64 range end their value sets instead of overflowing
// (2^62 doubled: a walk that never ended; a range step past 2^63).
TEST(BoundSpace, ValueSetsHoldEachValueOnceAndStopAtTheInt64Range) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("sets", R"YAML(op: gemm
source: sets.cl.j2
kernel: k
parameters:
  - {name: A, values: [1, 2, 2, "M // 64"], default: 1}
  - {name: P, pow2: [1, "2 ** 62"], default: 1}
  - {name: R, range: [0, "2 ** 62 + (2 ** 62 - 1)", "2 ** 62"], default: 0}
launch: {global: [1], local: [1]}
)YAML"));
  BoundSpace space(spec, Problem::Parse("gemm:M=128,N=1,K=1"), TestDevice());
  EXPECT_EQ(space.RawSize(), 2u * 63u * 2u);
  EXPECT_EQ(space.Count(), 2u * 63u * 2u);
  const std::vector<std::string> keys = Keys(space.Enumerate());
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "A=2,P=4611686018427387904,R=4611686018427387904"),
            keys.end());
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
  EXPECT_EQ(why, "violates hard constraint \"THREADS <= device_max_work_group_size\" (" +
                     spec.space_path + ":10)");
  EXPECT_FALSE(space.Check(Config::ParseKey("TM=48,WM=1"), &why));
  EXPECT_EQ(why, "TM=48 is not in its value set");
  Instance inst = space.Instantiate(d);
  EXPECT_EQ(inst.global[0], 64u);  // 128 / 32 * 16
  EXPECT_EQ(inst.global[1], 4u);
  EXPECT_EQ(inst.global[2], 1u);
  EXPECT_EQ(inst.local[0], 16u);
  bool has_threads = false;
  for (const auto& [name, value] : inst.vars)
    has_threads = has_threads || (name == "THREADS" && value.i == 16);
  EXPECT_TRUE(has_threads);
}

TEST(BoundSpace, StagesBeforeTheKernelAreThoseWhoseWhenHoldsInOrder) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("staged", R"YAML(op: gemm
source: staged.cl.j2
kernel: k
parameters:
  - {name: SPLIT, values: [0, 1], default: 0}
  - {name: WG, values: [4, 8], default: 4}
launch:
  global: ["ceil_div(M, WG) * WG"]
  local: [WG]
  before:
    - {kernel: k_a, when: SPLIT, global: [M, 2], local: [WG, 1]}
    - {kernel: k_b, global: [WG], local: [WG]}
  workspace_bytes: SPLIT * M * 4
)YAML"));
  BoundSpace space(spec, Problem::Parse("gemm:M=10,N=1,K=1"), TestDevice());
  Instance split = space.Instantiate(Config::ParseKey("SPLIT=1,WG=8"));
  ASSERT_EQ(split.before.size(), 2u);
  EXPECT_EQ(split.before[0].kernel, "k_a");
  EXPECT_EQ(split.before[0].global[0], 10u);
  EXPECT_EQ(split.before[0].global[1], 2u);
  EXPECT_EQ(split.before[0].global[2], 1u);
  EXPECT_EQ(split.before[0].local[0], 8u);
  EXPECT_EQ(split.before[1].kernel, "k_b");
  EXPECT_EQ(split.before[1].global[0], 8u);
  EXPECT_EQ(split.workspace_bytes, 40);
  Instance fused = space.Instantiate(Config::ParseKey("SPLIT=0,WG=4"));
  ASSERT_EQ(fused.before.size(), 1u);
  EXPECT_EQ(fused.before[0].kernel, "k_b");
  EXPECT_EQ(fused.workspace_bytes, 0);
}

TEST(BoundSpace, LaunchTimeParametersAreHiddenFromTheSourceAndSetTheLaunch) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("at_launch", R"YAML(op: gemm
source: at_launch.cl.j2
kernel: k
parameters:
  - {name: SPAN, values: [1, 2], default: 1}
  - {name: WG, values: [4, 8], default: 4, applied: launch}
  - {name: CARVE, values: [-1, 50], default: -1, applied: launch}
derived:
  - {name: TILE, expr: "WG * SPAN"}
  - {name: TWICE, expr: "2 * SPAN"}
launch:
  global: ["ceil_div(M, WG) * WG"]
  local: [WG]
  dynamic_local_bytes: TILE * 4
  shared_carveout: CARVE
)YAML"));
  BoundSpace space(spec, Problem::Parse("gemm:M=10,N=1,K=1"), TestDevice());
  Instance inst = space.Instantiate(Config::ParseKey("SPAN=2,WG=8,CARVE=50"));
  std::vector<std::string> names;
  for (const auto& [name, value] : inst.vars) names.push_back(name);
  // The renderer sees SPAN and TWICE, never WG, CARVE or TILE (it reads WG).
  EXPECT_EQ(names,
            (std::vector<std::string>{"K", "M", "N", "col_major", "compute_bytes", "dtype_bytes",
                                      "tf32", "trans_a", "trans_b", "SPAN", "TWICE"}));
  EXPECT_EQ(inst.global[0], 16u);
  EXPECT_EQ(inst.local[0], 8u);
  EXPECT_EQ(inst.dynamic_local_bytes, 64);
  EXPECT_EQ(inst.shared_carveout, 50);
  // Without the optional settings: -1 each.
  Instance plain = BoundSpace(SpaceSpec::Load(t.dir(), t.Add("plain", R"YAML(op: gemm
source: plain.cl.j2
kernel: k
parameters:
  - {name: A, values: [1]}
launch: {global: [1], local: [1]}
)YAML")),
                              Problem::Parse("gemm:M=10,N=1,K=1"), TestDevice())
                       .Instantiate(Config::ParseKey("A=1"));
  EXPECT_EQ(plain.dynamic_local_bytes, -1);
  EXPECT_EQ(plain.shared_carveout, -1);
  EXPECT_TRUE(plain.before.empty());
  EXPECT_EQ(plain.workspace_bytes, 0);
  // A carveout outside -1..100 is an error naming the file and the config.
  SpaceSpec wide = SpaceSpec::Load(t.dir(), t.Add("wide", R"YAML(op: gemm
source: wide.cl.j2
kernel: k
parameters:
  - {name: CARVE, values: [101]}
launch: {global: [1], local: [1], shared_carveout: CARVE}
)YAML"));
  try {
    BoundSpace(wide, Problem::Parse("gemm:M=10,N=1,K=1"), TestDevice())
        .Instantiate(Config::ParseKey("CARVE=101"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              wide.space_path +
                  ": launch shared_carveout \"CARVE\" is not an integer from -1 to 100 "
                  "for CARVE=101");
  }
}

TEST(BoundSpace, PostCompileConstraintsSeeTheCompiledResources) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("compiled", R"YAML(op: gemm
source: compiled.cl.j2
kernel: k
parameters:
  - {name: TM, values: [16, 32, 64], default: 32}
  - {name: WM, values: [1, 2, 4], default: 2}
derived:
  - {name: ACC, expr: "TM // WM"}
constraints:
  - "TM % WM == 0"
  - expr: "registers <= 64 + ACC and spills == 0"
    stage: after_compile
    class: hardware
  - expr: "local_mem_used + stack_bytes <= device_local_mem_bytes"
    kind: soft
    stage: after_compile
launch: {global: [1], local: [1]}
)YAML"));
  BoundSpace space(spec, Problem::Parse("gemm:M=64,N=1,K=1"), TestDevice());
  EXPECT_EQ(space.Count(), 9u);  // post-compile constraints do not prune the walk
  SpaceReport report = space.Explain();
  EXPECT_EQ(report.constraints[1].checked_at, "after compile");
  EXPECT_EQ(report.constraints[2].remaining, 9u);
  Config c = Config::ParseKey("TM=32,WM=2");  // ACC = 16
  std::string why;
  std::map<std::string, int64_t> ok = {
      {"registers", 80}, {"spills", 0}, {"stack_bytes", 0}, {"local_mem_used", 4096}};
  EXPECT_TRUE(space.CheckAfterCompile(c, ok, &why)) << why;
  std::map<std::string, int64_t> too_many = ok;
  too_many["registers"] = 81;
  EXPECT_FALSE(space.CheckAfterCompile(c, too_many, &why));
  EXPECT_EQ(why, "violates hard constraint \"registers <= 64 + ACC and spills == 0\" (" +
                     spec.space_path + ":11) after compile");
  std::map<std::string, int64_t> big_stack = ok;
  big_stack["stack_bytes"] = 524288;
  EXPECT_FALSE(space.CheckAfterCompile(c, big_stack, &why));
  EXPECT_EQ(
      why, "violates soft constraint \"local_mem_used + stack_bytes <= device_local_mem_bytes\" (" +
               spec.space_path + ":14) after compile");
  try {
    space.CheckAfterCompile(c, {{"registers", 10}, {"spills", 0}}, &why);
    FAIL() << "a missing resource was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "constraint \"local_mem_used + stack_bytes <= device_local_mem_bytes\" needs "
              "compiled resource \"local_mem_used\", which was not given");
  }
  EXPECT_THROW(space.CheckAfterCompile(c, {{"regs", 1}}, &why), Error);
  // A backend that reports no registers or spills (OpenCL): the constraint
  // reading them is skipped, the others still apply.
  std::map<std::string, int64_t> opencl = {{"stack_bytes", 0}, {"local_mem_used", 4096}};
  EXPECT_TRUE(space.CheckAfterCompile(c, opencl, &why, /*skip_missing=*/true)) << why;
  opencl["stack_bytes"] = 524288;
  EXPECT_FALSE(space.CheckAfterCompile(c, opencl, &why, /*skip_missing=*/true));
  EXPECT_EQ(
      why, "violates soft constraint \"local_mem_used + stack_bytes <= device_local_mem_bytes\" (" +
               spec.space_path + ":14) after compile");
  EXPECT_TRUE(space.CheckAfterCompile(c, {}, &why, /*skip_missing=*/true));
  // Without soft constraints the stack no longer matters.
  BindOptions hard;
  hard.ignore_soft = true;
  BoundSpace hard_only(spec, Problem::Parse("gemm:M=64,N=1,K=1"), TestDevice(), hard);
  EXPECT_TRUE(hard_only.CheckAfterCompile(c, {{"registers", 80}, {"spills", 0}}, &why)) << why;
  // A template variable is never a resource.
  Instance inst = space.Instantiate(c);
  for (const auto& [name, value] : inst.vars) EXPECT_NE(name, "registers");
}

TEST(BoundSpace, RealTemplatesMatchBruteForceForTheDefaultProblems) {
  const std::string dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  DeviceInfo device = TestDevice();
  for (const auto& [name, problem_text] : std::vector<std::pair<std::string, std::string>>{
           {"conv2d/direct_nchw", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"},
           {"gemm/tiled", "gemm:M=512,N=512,K=512"}}) {
    SpaceSpec spec = SpaceSpec::Load(dir, name);
    Problem problem = Problem::Parse(problem_text);
    BoundSpace space(spec, problem, device);
    std::vector<std::string> expected = BruteForce(spec, problem, device, -1, space.WalkOrder());
    EXPECT_EQ(space.Count(), expected.size()) << name;
    EXPECT_GE(space.Count(), 200u) << name;
    EXPECT_EQ(Keys(space.Enumerate()), expected) << name;
    std::string why;
    EXPECT_TRUE(space.Check(space.DefaultConfig(), &why)) << name << ": " << why;
  }
}

}  // namespace
}  // namespace beast
