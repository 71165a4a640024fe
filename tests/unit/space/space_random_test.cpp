// Random small spaces (fixed seed) against the brute-force filter: value sets
// of every form, some read earlier parameters; derived chains; constraints
// drawn from templates with / // % on negative and float values, chains,
// and divisions that can be by zero. Counts, the listing in walk order, the
// report's remaining counts, positions and threads must all agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::BruteForce;
using testing::Keys;
using testing::TempTemplates;
using testing::TestDevice;

class Draw {
 public:
  explicit Draw(uint64_t seed) : state_(seed) {}
  int Below(int n) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state_ >> 33) % static_cast<uint64_t>(n));
  }
  template <class T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(static_cast<int>(v.size()))];
  }

 private:
  uint64_t state_;
};

std::string RandomSpace(Draw& d, const std::string& name_of_space, int params) {
  std::string yaml = "op: gemm\nsource: " + name_of_space + ".cl.j2\nkernel: k\nparameters:\n";
  std::vector<std::string> names;
  for (int p = 0; p < params; ++p) {
    std::string name = std::string(1, static_cast<char>('A' + p));
    std::string earlier = names.empty() ? "2" : d.Pick(names);
    switch (d.Below(names.empty() ? 3 : 5)) {
      case 0:
        yaml += "  - {name: " + name + ", values: [-3, -1, 0, 2, 5, 1.5]}\n";
        break;
      case 1:
        yaml += "  - {name: " + name + ", range: [-2, 4]}\n";
        break;
      case 2:
        yaml += "  - {name: " + name + ", pow2: [1, 16]}\n";
        break;
      case 3:
        yaml +=
            "  - {name: " + name + ", range: [\"-1\", \"abs(int(" + earlier + ")) % 5 + 1\"]}\n";
        break;
      default:  // distinct values whatever the earlier parameter is
        yaml += "  - {name: " + name + ", values: [" + earlier + ", \"" + earlier +
                " * 2 + 10\", " + std::to_string(100 + p) + "]}\n";
        break;
    }
    names.push_back(name);
  }
  yaml += "derived:\n";
  int derived = d.Below(3);
  for (int k = 0; k < derived; ++k) {
    std::string name = "D" + std::to_string(k);
    yaml += "  - {name: " + name + ", expr: \"" + d.Pick(names) + " * " + d.Pick(names) +
            " // 3 - " + d.Pick(names) + "\"}\n";
    names.push_back(name);
  }
  const std::vector<std::string> templates = {"{a} % {b} != 1",
                                              "{a} + {b} < {c}",
                                              "-2 <= {a} - {b} < 3",
                                              "{a} / ({b} + 0.5) > -1",
                                              "{a} % ({b} - 2) == 0",
                                              "not ({a} == {b}) or {c} > 0",
                                              "({a} if {b} > 0 else {c}) >= 0",
                                              "{a} // 2 * 2 != {b}",
                                              "{a} * {b} <= 8",
                                              "{a} % -3 != -1",
                                              "min({a}, {b}) >= -1",
                                              "{a} in [0, 2, 4] or {b} < {c}"};
  yaml += "constraints:\n";
  int constraints = 2 + d.Below(4);
  for (int k = 0; k < constraints; ++k) {
    std::string c = d.Pick(templates);
    for (const char* slot : {"{a}", "{b}", "{c}"}) {
      for (size_t at; (at = c.find(slot)) != std::string::npos;) c.replace(at, 3, d.Pick(names));
    }
    yaml += "  - expr: \"" + c + "\"\n    kind: " + (d.Below(2) ? "hard" : "soft") + "\n";
  }
  return yaml + "launch: {global: [1], local: [1]}\n";
}

TEST(SpaceRandom, RandomSpacesMatchBruteForce) {
  TempTemplates t;
  Problem problem = Problem::Parse("gemm:M=8,N=8,K=8");
  Draw d(20240607);
  int nonempty = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::string name = "r" + std::to_string(trial);
    std::string yaml = RandomSpace(d, name, 3 + d.Below(3));
    SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add(name, yaml));
    for (bool reorder : {true, false}) {
      BindOptions options;
      options.reorder = reorder;
      BoundSpace space(spec, problem, TestDevice(), options);
      std::vector<std::string> expected =
          BruteForce(spec, problem, TestDevice(), -1, space.WalkOrder());
      ASSERT_EQ(Keys(space.Enumerate()), expected) << yaml;
      ASSERT_EQ(space.Count(), expected.size()) << yaml;
      ASSERT_EQ(space.Count(2), expected.size()) << yaml;
      ASSERT_EQ(space.RawSize(), BruteForce(spec, problem, TestDevice(), 0).size()) << yaml;
      SpaceReport report = space.Explain();
      for (size_t c = 0; c < spec.constraints.size(); ++c) {
        ASSERT_EQ(report.constraints[c].remaining,
                  BruteForce(spec, problem, TestDevice(), static_cast<int>(c + 1)).size())
            << yaml << "constraint " << c;
      }
      for (uint64_t i = 0; i < expected.size(); ++i) {
        Config c = space.At(i);
        ASSERT_EQ(c.Key(), expected[i]) << yaml;
        ASSERT_EQ(space.IndexOf(c), i) << yaml;
      }
      nonempty += !expected.empty();
    }
  }
  EXPECT_GT(nonempty, 60);  // most of the 120 bound spaces have points to compare
}

}  // namespace
}  // namespace beast
