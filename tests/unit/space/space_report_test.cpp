// What a space counts and how an empty one is explained: configs whose
// derived value cannot be computed are never valid, whatever constraints are
// active; an empty space names what emptied it (a derived value, a
// constraint, a parameter's empty value set), and suggests --ignore-soft
// only when the hard constraints alone would leave configs.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::Keys;
using testing::TempTemplates;
using testing::TestDevice;

const char kHead[] = "op: gemm\nsource: SOURCE\nkernel: k\n";
const char kLaunch[] = "launch: {global: [1], local: [1]}\n";

SpaceSpec Load(TempTemplates& t, const std::string& name, const std::string& body) {
  std::string head = kHead;
  head.replace(head.find("SOURCE"), 6, name + ".cl.j2");
  return SpaceSpec::Load(t.dir(), t.Add(name, head + body + kLaunch));
}

BoundSpace Bind(const SpaceSpec& spec, bool ignore_soft = false) {
  BindOptions options;
  options.ignore_soft = ignore_soft;
  return BoundSpace(spec, Problem::Parse("gemm:M=64,N=64,K=64"), TestDevice(), options);
}

// D = 6 // A fails for A = 0: that config is not valid with the soft
// constraint applied, without it (--ignore-soft), or in a space with no
// constraint at all; the raw size still counts it.
TEST(SpaceReport, AConfigWhoseDerivedValueFailsIsNeverValid) {
  TempTemplates t;
  const std::string params =
      "parameters:\n  - {name: A, values: [0, 1, 2], default: 1}\n"
      "derived:\n  - {name: D, expr: \"6 // A\"}\n";
  const SpaceSpec soft =
      Load(t, "soft", params + "constraints:\n  - expr: \"A >= 0\"\n    kind: soft\n");
  const SpaceSpec none = Load(t, "none", params);
  for (const auto& [spec, ignore_soft] : std::vector<std::pair<const SpaceSpec*, bool>>{
           {&soft, false}, {&soft, true}, {&none, false}}) {
    const BoundSpace space = Bind(*spec, ignore_soft);
    EXPECT_EQ(space.Count(), 2u);
    EXPECT_EQ(Keys(space.Enumerate()), (std::vector<std::string>{"A=1", "A=2"}));
    EXPECT_EQ(space.RawSize(), 3u);
    std::string why;
    EXPECT_FALSE(space.Check(Config::ParseKey("A=0"), &why));
    const SpaceReport report = space.Explain();
    EXPECT_EQ(report.raw, 3u);
    EXPECT_EQ(report.computable, 2u);
    EXPECT_EQ(report.valid, 2u);
  }
}

// Every config's derived value fails: the space is empty because of it, not
// because of the constraint checked first.
TEST(SpaceReport, AnEmptySpaceOfFailedDerivedValuesBlamesNoConstraint) {
  TempTemplates t;
  const SpaceSpec spec = Load(t, "zero",
                              "parameters:\n  - {name: A, values: [0], default: 0}\n"
                              "derived:\n  - {name: D, expr: \"6 // A\"}\n"
                              "constraints:\n  - \"A >= 0\"\n");
  const BoundSpace space = Bind(spec);  // the report points into it
  const SpaceReport report = space.Explain();
  EXPECT_EQ(report.valid, 0u);
  EXPECT_EQ(report.computable, 0u);
  EXPECT_EQ(report.emptied_by, -1);
  EXPECT_EQ(WhyEmpty(report),
            "every config has a derived value that cannot be computed (division by zero)");
}

// A hard constraint empties the space after a soft one removed configs:
// dropping the soft ones would leave nothing, so --ignore-soft is not
// offered; a soft one that empties it is offered the way out.
TEST(SpaceReport, IgnoreSoftIsSuggestedOnlyWhenTheHardOnesLeaveConfigs) {
  TempTemplates t;
  const std::string params =
      "parameters:\n  - {name: A, values: [1, 2, 3], default: 1}\n"
      "  - {name: B, values: [1, 2, 3], default: 1}\n";
  const SpaceSpec hard = Load(t, "hard",
                              params +
                                  "constraints:\n  - expr: \"A > 1\"\n    kind: soft\n"
                                  "  - \"B > 5\"\n");
  const BoundSpace hard_space = Bind(hard);  // the report points into it
  const SpaceReport by_hard = hard_space.Explain();
  EXPECT_EQ(by_hard.emptied_by, 1);
  EXPECT_EQ(by_hard.hard_only, 0u);
  EXPECT_EQ(WhyEmpty(by_hard), "hard constraint \"B > 5\" (" + hard.space_path +
                                   ":10) removed the last configs (before it: soft \"A > 1\" 1)");
  const SpaceSpec soft = Load(t, "soft",
                              params +
                                  "constraints:\n  - \"B > 1\"\n"
                                  "  - expr: \"A > 5\"\n    kind: soft\n");
  const BoundSpace soft_space = Bind(soft);
  const SpaceReport by_soft = soft_space.Explain();
  EXPECT_EQ(by_soft.emptied_by, 1);
  EXPECT_EQ(by_soft.hard_only, 6u);
  EXPECT_EQ(WhyEmpty(by_soft),
            "soft constraint \"A > 5\" (" + soft.space_path +
                ":9) removed the last configs (before it: hard \"B > 1\" 1); soft constraints "
                "removed configs: --ignore-soft drops the template's");
}

// A value set empty for this problem names its parameter and line.
TEST(SpaceReport, AnEmptyValueSetNamesItsParameter) {
  TempTemplates t;
  const SpaceSpec spec = Load(t, "pow2",
                              "parameters:\n  - {name: A, values: [1, 2], default: 1}\n"
                              "  - {name: P, pow2: [16, \"min(M, 8)\"], default: 16}\n");
  const BoundSpace space = Bind(spec);
  const SpaceReport report = space.Explain();
  EXPECT_EQ(report.raw, 0u);
  EXPECT_EQ(WhyEmpty(report), "the value set of parameter P (" + spec.space_path + ":6) is empty");
}

}  // namespace
}  // namespace beast
