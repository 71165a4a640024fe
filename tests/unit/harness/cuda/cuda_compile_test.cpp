// The CUDA rendering of every template compiles with NVRTC for sm_80 and
// sm_90 (no GPU needed; a template's first problem for both, its other
// problems and other dtypes for one of them each, by turns, its other
// problems with two configs of their flag cover; every f32 problem for both
// with its whole cover in the full build, label sweep), on every code path: each
// layout, problems that take the depthwise, bias, grouped, dilated and
// strided paths (conv) and every transposition in both storage orders
// (GEMM), with configs that give every staging, vector and unrolling flag
// each value the space allows (the CUDA-only tensor-core templates: their
// flags on their first problem; their paths and dtypes are
// tensor_core_compile_test.cpp's). Also: ptxas's resource report is parsed
// exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "beast/core/paths.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/template_vars.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/render/renderer.hpp"
#include "support/config_picks.hpp"
#include "support/cuda_compile_jobs.hpp"

namespace beast {
namespace {

TEST(PtxasInfo, ParsesTheNamedKernelOnly) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Function properties for other\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 99 registers, used 0 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'gemm_tiled' for 'sm_90'\n"
      "ptxas info    : Function properties for gemm_tiled\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 64 registers, used 1 barriers, 8192 bytes smem, 380 bytes cmem[0]\n";
  harness::CudaResources r = harness::ParsePtxasInfo(log, "gemm_tiled");
  EXPECT_EQ(r.registers, 64);
  EXPECT_EQ(r.stack_bytes, 16);
  EXPECT_EQ(r.spill_store_bytes, 8);
  EXPECT_EQ(r.spill_load_bytes, 12);
  EXPECT_EQ(r.shared_bytes, 8192);
  EXPECT_EQ(harness::ParsePtxasInfo(log, "absent").registers, -1);
}

// Conv problems that between them take every path of a conv template: a
// plain 3x3; depthwise with bias; grouped, dilated and strided, with an odd
// output width (the vector-tail and padded-row paths).
const char* const kConvProblems[] = {
    "conv2d:N=32,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1",
    "conv2d:N=8,C=96,H=28,W=28,K=96,R=3,S=3,stride=1,pad=1,groups=96,bias=1",
    "conv2d:N=8,C=64,H=29,W=29,K=128,R=3,S=3,stride=2,pad=2,dilation=2,groups=4",
};

// Every problem a template is compiled for: each conv problem in each layout
// the template serves, or GEMM's four transpositions row- and column-major;
// in the template's first dtype.
std::vector<Problem> ProblemsFor(const SpaceSpec& spec) {
  std::vector<Problem> problems;
  // f32 for every template that has it; the first dtype of one that has not
  // (the tensor-core templates take 16-bit inputs).
  const std::string first_dtype = DTypeName(spec.dtypes.front());
  if (spec.op == OpKind::kGemm) {
    for (int t = 0; t < 8; ++t) {
      problems.push_back(Problem::Parse("gemm:M=512,N=512,K=512,transA=" + std::to_string(t & 1) +
                                        ",transB=" + std::to_string((t >> 1) & 1) +
                                        (t & 4 ? ",layout=col" : "") + ",dtype=" + first_dtype));
    }
    return problems;
  }
  for (Layout layout : spec.layouts) {
    for (const char* text : kConvProblems) {
      problems.push_back(Problem::Parse(std::string(text) + ",layout=" + LayoutName(layout) +
                                        ",dtype=" + first_dtype));
    }
  }
  return problems;
}

using testing::CompileAll;
using Job = testing::CudaJob;
const std::string& kTemplatesDir = testing::kSourceTemplatesDir;

Job RenderJob(harness::Renderer& renderer, const SpaceSpec& spec, const BoundSpace& space,
              const Problem& problem, const Config& config, const std::string& arch) {
  return testing::RenderCudaJob(renderer, spec, space, problem, config, arch);
}

// The architectures a template's problem compiles for: both for its first
// problem, where the config with the most shared memory meets each one's
// limit; one for each other problem, by turns (`turn`: the template's
// problems compiled so far beyond the first), since a path's PTX is the same
// for both and each NVRTC compile costs 0.3-0.6 s of a CI core. The full
// build (label sweep) compiles every problem for both.
std::vector<const char*> ArchsFor(bool first_problem, size_t turn) {
#ifdef BEAST_FULL_SWEEP
  (void)first_problem, (void)turn;
  return {"sm_80", "sm_90"};
#else
  if (first_problem) return {"sm_80", "sm_90"};
  return {turn % 2 ? "sm_90" : "sm_80"};
#endif
}

TEST(CudaCompile, EveryTemplateCompilesForSm80AndSm90OnEveryPath) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  const std::string& templates_dir = kTemplatesDir;
  harness::Renderer renderer = testing::SourceTemplateRenderer();
  std::vector<std::string> names = SpaceSpec::List(templates_dir);
  ASSERT_FALSE(names.empty());
  std::vector<Job> jobs;
  // Per template (either arch), and per template and arch ("name sm_80"),
  // the flag values its compiled configs hold.
  std::map<std::string, std::set<std::pair<std::string, int64_t>>> compiled_values;
  std::map<std::string, std::string> per_template;  // configs per problem, for the log
  for (const auto& name : names) {
    SpaceSpec spec = SpaceSpec::Load(templates_dir, name);
    testing::TemplateFlags flags = testing::FlagsOf(spec);
    const std::vector<Problem> problems = ProblemsFor(spec);
    size_t turn = 0;
    for (const Problem& problem : problems) {
      const bool first = &problem == &problems.front();
      // A CUDA-only (tensor-core) template's flags are covered on its first
      // problem; its default config compiles on every path in
      // tensor_core_compile_test.cpp.
      if (spec.backends.size() == 1 && !first) continue;
      const size_t jobs_before = jobs.size();
      for (const char* arch : ArchsFor(first, turn)) {
        DeviceInfo device =
            LoadDeviceSpec(std::string(BEAST_TEST_SOURCE_DIR) + "/constraints", arch);
        testing::ConfigPicker picker(spec, problem, device);
        // A template that does not compute a problem leaves it out by its
        // hard constraints (Winograd takes 3x3 stride 1 only, the
        // tensor-core conv no depthwise one); the first problem, the plain
        // 3x3, every template computes.
        if (picker.Count({}, /*hard_only=*/true) == 0) {
          EXPECT_FALSE(first) << name << " " << problem.Key() << " " << arch;
          continue;
        }
        testing::FlagCover cover = testing::CoverFlags(picker, flags, jobs.size());
        // The cover holds every (flag, value) pair the space allows here.
        for (const auto& [flag, value] : cover.reachable) {
          EXPECT_TRUE(testing::Covers(cover.configs, flag, value))
              << name << " " << problem.Key() << " " << flag << "=" << value;
        }
        // On the first problem, also the config with the most local memory
        // the hard constraints allow (the smallest tile among those: huge
        // tiles take NVRTC seconds), where the limits of shared memory bite.
        std::vector<Config> configs = cover.configs;
#ifndef BEAST_FULL_SWEEP
        // A path beyond the first problem's compiles two configs of its
        // cover, its first and one more by turns (turn / 2: turn's parity
        // is the architecture's): every flag value compiles on the first
        // problem for both architectures, and each config costs NVRTC
        // 0.3-0.6 s of a CI core (the full build compiles every cover).
        if (!first && configs.size() > 2)
          configs = {configs[0], configs[1 + (turn / 2) % (configs.size() - 1)]};
#endif
        if (first) {
          std::optional<int64_t> most =
              picker.ExtremeValue("LOCAL_BYTES", {}, true, /*largest=*/true);
          ASSERT_TRUE(most.has_value()) << name << " " << problem.Key() << " " << arch;
          std::optional<Config> most_local =
              picker.SmallestTile({"LOCAL_BYTES == " + std::to_string(*most)}, true, jobs.size());
          ASSERT_TRUE(most_local.has_value()) << name << " " << problem.Key() << " " << arch;
          bool seen = false;
          for (const Config& c : configs) seen = seen || c.Key() == most_local->Key();
          if (!seen) configs.push_back(*most_local);
        }
        BoundSpace space = picker.Where({}, /*hard_only=*/true);
        per_template[name + " " + arch] += std::to_string(configs.size()) + " ";
        for (const Config& config : configs) {
          for (const testing::Flag& flag : flags.flags) {
            const auto value = std::make_pair(flag.name, testing::ValueOf(config, flag.name));
            compiled_values[name].insert(value);
            compiled_values[name + " " + arch].insert(value);
          }
          jobs.push_back(RenderJob(renderer, spec, space, problem, config, arch));
        }
      }
      if (!first && jobs.size() > jobs_before) ++turn;  // a problem it computes took the turn
    }
    // Over its problems, every flag of the template took every value listed
    // for it, and no other (the table is the claim; a value no problem
    // reaches fails here): for the two architectures together here, for
    // each of them in the full build.
    std::set<std::pair<std::string, int64_t>> listed;
    for (const testing::Flag& flag : flags.flags) {
      for (int64_t v : flag.values) listed.emplace(flag.name, v);
    }
    EXPECT_EQ(compiled_values[name], listed) << name;
#ifdef BEAST_FULL_SWEEP
    for (const char* arch : {"sm_80", "sm_90"})
      EXPECT_EQ(compiled_values[name + " " + arch], listed) << name << " " << arch;
#endif
  }
  CompileAll(&jobs);
  int compiled = 0;
  for (const Job& job : jobs) {
    EXPECT_TRUE(job.result.ok) << job.what << "\n" << job.result.log;
    EXPECT_GT(job.result.resources.registers, 0) << job.what << "\n" << job.result.log;
    EXPECT_FALSE(job.result.cubin.empty()) << job.what;
    compiled += job.result.ok;
  }
  EXPECT_EQ(compiled, static_cast<int>(jobs.size()));
  for (const auto& [what, count] : per_template)
    std::printf("%s: %s\n", what.c_str(), count.c_str());
  std::printf("%d configs compiled\n", compiled);
}

// Every other dtype a template lists than its first (f64, and the 16-bit
// storage types that convert through PTX) compiles too: on the first problem
// of each template, the configs that give every flag each value it can take
// there. Each (template, dtype) for one architecture, sm_80 and sm_90 by
// turns, so that every dtype meets both (the f32 paths above compile for
// both; what a dtype changes is the PTX of its loads, stores and
// conversions, which both targets take alike, and each compile costs about
// 0.4 s of a CI core).
TEST(CudaCompile, EveryTemplateCompilesInEveryOtherDtype) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  const std::string& templates_dir = kTemplatesDir;
  harness::Renderer renderer = testing::SourceTemplateRenderer();
  std::vector<Job> jobs;
  std::set<std::string> dtypes_seen;
  std::set<std::pair<std::string, std::string>> dtype_archs;
  size_t turn = 0;
  for (const auto& name : SpaceSpec::List(templates_dir)) {
    SpaceSpec spec = SpaceSpec::Load(templates_dir, name);
    // The CUDA-only (tensor-core) templates' dtypes are compiled on every
    // path by tensor_core_compile_test.cpp.
    if (spec.backends.size() == 1) continue;
    testing::TemplateFlags flags = testing::FlagsOf(spec);
    for (DType dtype : spec.dtypes) {
      if (dtype == spec.dtypes.front()) continue;  // compiled above
      dtypes_seen.insert(DTypeName(dtype));
      const Problem first = ProblemsFor(spec).front();
      const Problem problem = first.op() == OpKind::kGemm ? Problem::Gemm(first.gemm(), dtype)
                                                          : Problem::Conv2d(first.conv(), dtype);
      const char* arch = turn++ % 2 ? "sm_90" : "sm_80";
      dtype_archs.emplace(DTypeName(dtype), arch);
      DeviceInfo device = LoadDeviceSpec(std::string(BEAST_TEST_SOURCE_DIR) + "/constraints", arch);
      testing::ConfigPicker picker(spec, problem, device);
      BoundSpace space = picker.Where({}, /*hard_only=*/true);
      for (const Config& config : testing::CoverFlags(picker, flags, jobs.size()).configs) {
        jobs.push_back(RenderJob(renderer, spec, space, problem, config, arch));
      }
    }
  }
  EXPECT_EQ(dtypes_seen, (std::set<std::string>{"bf16", "f16", "f64"}));
  for (const char* dtype : {"bf16", "f16", "f64"}) {
    for (const char* arch : {"sm_80", "sm_90"})
      EXPECT_TRUE(dtype_archs.count({dtype, arch})) << dtype << " never compiled for " << arch;
  }
  CompileAll(&jobs);
  int compiled = 0;
  for (const Job& job : jobs) {
    EXPECT_TRUE(job.result.ok) << job.what << "\n" << job.result.log;
    EXPECT_FALSE(job.result.cubin.empty()) << job.what;
    compiled += job.result.ok;
  }
  EXPECT_EQ(compiled, static_cast<int>(jobs.size()));
  std::printf("%d configs compiled in f64, f16 and bf16\n", compiled);
}

}  // namespace
}  // namespace beast
