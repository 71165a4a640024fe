// The walk order and its consequences: reordered walks give the brute
// force's points in walk order, threads change nothing, independent groups
// are walked apart, and the report still names the constraint that emptied
// a space.
#include <gtest/gtest.h>

#include <algorithm>

#include "beast/space/bound_space.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::BruteForce;
using testing::Keys;
using testing::kTrickySpace;
using testing::TempTemplates;
using testing::TestDevice;

// Declared badly for a walk: two loosely tied parameters first, the tight
// ones last; Y's value set reads X; a derived chain that can divide by zero.
const char kReorderSpace[] = R"YAML(op: gemm
source: reorder.cl.j2
kernel: k
parameters:
  - {name: U, range: [-3, 9], default: 0}
  - {name: V, range: [0, 12, 2], default: 0}
  - {name: X, pow2: [1, 64], default: 4}
  - {name: Y, range: [1, "X + 1"], default: 1}
  - {name: Z, values: [-2, 0, 1, 3, 4.5], default: 0}
derived:
  - {name: D1, expr: "X * Y"}
  - {name: D2, expr: "D1 // (Z - 1)"}
  - {name: D3, expr: "D2 % 7"}
constraints:
  - "X % Y == 0"
  - "D3 == 2 or D3 == -5"
  - "U < V or Z < 0"
  - "-1 <= U - V // 3 < 4"
  - "D1 / 4 <= 2 * M"
launch: {global: [1], local: [1]}
)YAML";

TEST(SpaceOrder, ReorderedWalkMatchesBruteForce) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("reorder", kReorderSpace));
  Problem problem = Problem::Parse("gemm:M=5,N=1,K=1");
  BoundSpace space(spec, problem, TestDevice());
  std::vector<std::string> order = space.WalkOrder();
  ASSERT_EQ(order.size(), 5u);
  EXPECT_NE(order, (std::vector<std::string>{"U", "V", "X", "Y", "Z"}));
  // Y's value set reads X, so X comes first.
  EXPECT_LT(std::find(order.begin(), order.end(), "X"), std::find(order.begin(), order.end(), "Y"));
  std::vector<std::string> expected = BruteForce(spec, problem, TestDevice(), -1, order);
  EXPECT_EQ(Keys(space.Enumerate()), expected);
  EXPECT_EQ(space.Count(), expected.size());
  EXPECT_GT(space.Count(), 10u);
  EXPECT_EQ(space.RawSize(), BruteForce(spec, problem, TestDevice(), 0).size());
  SpaceReport report = space.Explain();
  for (int c = 0; c < 5; ++c) {
    EXPECT_EQ(report.constraints[c].remaining,
              BruteForce(spec, problem, TestDevice(), c + 1).size())
        << c;
  }
  EXPECT_GT(report.derived_errors, 0u);  // Z == 1 divides by zero
  BindOptions declared;
  declared.reorder = false;
  BoundSpace in_order(spec, problem, TestDevice(), declared);
  EXPECT_EQ(in_order.WalkOrder(), (std::vector<std::string>{"U", "V", "X", "Y", "Z"}));
  EXPECT_EQ(Keys(in_order.Enumerate()), BruteForce(spec, problem, TestDevice()));
}

TEST(SpaceOrder, ThreadsChangeNothing) {
  TempTemplates t;
  SpaceSpec reorder = SpaceSpec::Load(t.dir(), t.Add("reorder", kReorderSpace));
  SpaceSpec tricky = SpaceSpec::Load(t.dir(), t.Add("tricky", kTrickySpace));
  const std::string dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  std::vector<std::pair<SpaceSpec, Problem>> cases = {
      {reorder, Problem::Parse("gemm:M=5,N=1,K=1")},
      {tricky, Problem::Parse("gemm:M=350,N=8,K=8")},
      {SpaceSpec::Load(dir, "gemm/tiled"), Problem::Parse("gemm:M=512,N=512,K=512")},
      {SpaceSpec::Load(dir, "conv2d/direct_nchw"),
       Problem::Parse("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1")}};
  for (const auto& [spec, problem] : cases) {
    BoundSpace one(spec, problem, TestDevice());
    BindOptions three_threads;
    three_threads.threads = 3;
    BoundSpace three(spec, problem, TestDevice(), three_threads);
    uint64_t count = one.Count(1);
    EXPECT_EQ(one.Count(2), count) << spec.name;
    EXPECT_EQ(three.Count(), count) << spec.name;
    EXPECT_EQ(one.Count(0), count) << spec.name;
    std::vector<std::string> all = Keys(one.Enumerate(SIZE_MAX, 1));
    EXPECT_EQ(Keys(one.Enumerate(SIZE_MAX, 3)), all) << spec.name;
    std::vector<std::string> first(all.begin(), all.begin() + std::min<size_t>(7, all.size()));
    EXPECT_EQ(Keys(one.Enumerate(7, 2)), first) << spec.name;
    SpaceReport a = one.Explain(), b = three.Explain();
    EXPECT_EQ(a.valid, b.valid);
    EXPECT_EQ(a.derived_errors, b.derived_errors);
    ASSERT_EQ(a.constraints.size(), b.constraints.size());
    for (size_t c = 0; c < a.constraints.size(); ++c) {
      EXPECT_EQ(a.constraints[c].removed, b.constraints[c].removed) << spec.name << " " << c;
      EXPECT_EQ(a.constraints[c].invalid_eval, b.constraints[c].invalid_eval)
          << spec.name << " " << c;
      EXPECT_EQ(a.constraints[c].remaining, b.constraints[c].remaining) << spec.name << " " << c;
    }
  }
}

TEST(SpaceOrder, IndependentGroupsAreCountedApart) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("groups", R"YAML(op: gemm
source: groups.cl.j2
kernel: k
parameters:
  - {name: A, range: [0, 4], default: 0}
  - {name: C, range: [0, 3], default: 0}
  - {name: B, range: [0, 4], default: 1}
  - {name: D, range: [0, 3], default: 1}
constraints:
  - "A < B"
  - "C < D"
launch: {global: [1], local: [1]}
)YAML"));
  Problem problem = Problem::Parse("gemm:M=1,N=1,K=1");
  BoundSpace space(spec, problem, TestDevice());
  EXPECT_EQ(space.WalkOrder(), (std::vector<std::string>{"A", "B", "C", "D"}));
  EXPECT_EQ(space.Count(), 18u);  // 6 pairs A < B times 3 pairs C < D
  EXPECT_EQ(Keys(space.Enumerate()),
            BruteForce(spec, problem, TestDevice(), -1, space.WalkOrder()));
  SpaceReport report = space.Explain();
  // Each group is walked once: (A, B) pairs rejected, then (C, D) pairs.
  EXPECT_EQ(report.constraints[0].removed, 10u);
  EXPECT_EQ(report.constraints[1].removed, 6u);
  EXPECT_EQ(report.constraints[0].remaining, 54u);
  EXPECT_EQ(report.constraints[1].remaining, 18u);
}

TEST(SpaceOrder, EmptiedByAConstraintTheWalkChecksEarly) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("emptied", R"YAML(op: gemm
source: emptied.cl.j2
kernel: k
parameters:
  - {name: A, range: [1, 9], default: 1}
  - {name: B, range: [1, 9], default: 1}
  - {name: C, range: [1, 9], default: 1}
constraints:
  - "A + B > 3"
  - expr: "C * A > 100"
    kind: soft
  - "B != C"
launch: {global: [1], local: [1]}
)YAML"));
  BoundSpace space(spec, Problem::Parse("gemm:M=1,N=1,K=1"), TestDevice());
  EXPECT_EQ(space.Count(), 0u);
  SpaceReport report = space.Explain();
  EXPECT_EQ(report.emptied_by, 1);
  EXPECT_EQ(report.constraints[0].remaining,
            488u);  // (64 - 3 pairs with A + B <= 3) * 8 values of C
  EXPECT_EQ(WhyEmpty(report), "soft constraint \"C * A > 100\" (" + spec.space_path +
                                  ":10) removed the last configs; soft constraints removed "
                                  "configs: --ignore-soft drops the template's");
}

}  // namespace
}  // namespace beast
