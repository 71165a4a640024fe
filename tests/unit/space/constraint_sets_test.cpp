// The reusable constraint sets in constraints/sets bind to every real
// template (each template derives the names they read) and prune exactly what
// a brute-force filter with the set's constraint appended prunes.
#include <gtest/gtest.h>

#include <filesystem>

#include "beast/space/bound_space.hpp"
#include "beast/space/user_constraints.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::BruteForce;
using testing::Keys;

const std::string kSource = BEAST_TEST_SOURCE_DIR;

// A GPU-shaped device, so that occupancy and warp constraints have work to do.
DeviceInfo GpuLikeDevice() {
  DeviceInfo d;
  d.name = "gpu-like test device";
  d.limits.max_work_group_size = 1024;
  d.limits.max_work_item_sizes[0] = d.limits.max_work_item_sizes[1] = 1024;
  d.limits.max_work_item_sizes[2] = 64;
  d.limits.local_mem_bytes = 49152;
  d.limits.compute_units = 132;
  d.limits.warp_size = 32;
  return d;
}

struct Case {
  std::string tmpl;
  std::string problem;
};

const std::vector<Case> kCases = {
    {"conv2d/direct_nchw", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"},
    {"gemm/tiled", "gemm:M=512,N=512,K=512"},
};

const std::vector<std::string> kSets = {"full_warps", "min_occupancy", "tiles_within_problem",
                                        "local_memory_headroom"};

TEST(ConstraintSets, EverySetIsShippedAndLoadsByName) {
  for (const auto& set : kSets) {
    EXPECT_TRUE(std::filesystem::exists(kSource + "/constraints/sets/" + set + ".yaml")) << set;
    std::vector<ConstraintSpec> loaded = LoadConstraintFile(set, kSource + "/constraints");
    ASSERT_EQ(loaded.size(), 1u) << set;
    EXPECT_EQ(loaded[0].kind, ConstraintKind::kSoft) << set;
  }
}

TEST(ConstraintSets, BindToEveryTemplateAndMatchBruteForce) {
  DeviceInfo device = GpuLikeDevice();
  for (const auto& c : kCases) {
    SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", c.tmpl);
    Problem problem = Problem::Parse(c.problem);
    uint64_t base = BoundSpace(spec, problem, device).Count();
    for (const auto& set : kSets) {
      BindOptions options;
      options.extra = LoadConstraintFile(set, kSource + "/constraints");
      BoundSpace space(spec, problem, device, options);
      SpaceSpec with_set = spec;
      for (const auto& extra : options.extra) with_set.constraints.push_back(extra);
      std::vector<std::string> expected =
          BruteForce(with_set, problem, device, -1, space.WalkOrder());
      EXPECT_EQ(Keys(space.Enumerate()), expected) << c.tmpl << " + " << set;
      EXPECT_LE(space.Count(), base) << c.tmpl << " + " << set;
      // The set is shown in the pruning statistics, after the template's own.
      SpaceReport report = space.Explain();
      ASSERT_EQ(report.constraints.size(), spec.constraints.size() + 1) << c.tmpl << " + " << set;
      EXPECT_EQ(report.constraints.back().spec->expr.text(), options.extra[0].expr.text());
      EXPECT_EQ(report.valid, space.Count());
    }
  }
}

// A set is meant to stand in for (or add to) a template's soft constraints:
// over what the hard constraints allow (--ignore-soft), each set removes
// something on this device, so none of them is a constraint that cannot bite.
TEST(ConstraintSets, EachSetPrunesTheHardSpace) {
  DeviceInfo device = GpuLikeDevice();
  BindOptions hard_only;
  hard_only.ignore_soft = true;
  for (const auto& set : kSets) {
    BindOptions options = hard_only;
    options.extra = LoadConstraintFile(set, kSource + "/constraints");
    uint64_t removed = 0;
    for (const auto& c : kCases) {
      SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", c.tmpl);
      Problem problem = Problem::Parse(c.problem);
      removed += BoundSpace(spec, problem, device, hard_only).Count() -
                 BoundSpace(spec, problem, device, options).Count();
    }
    EXPECT_GT(removed, 0u) << set;
  }
}

}  // namespace
}  // namespace beast
