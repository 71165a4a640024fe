// Correctness sweep on PoCL: every conv2d template, in every layout it
// supports, on the 17 ONNX golden convolutions and the DeepBench / benchdnn
// shapes of tests/data; every GEMM template on all four transpositions of odd
// shapes, row- and column-major. Several configs per (template, shape), chosen
// by what they are (tests/support/config_picks.hpp): the default (where the
// hard constraints allow it, as `beast tune` measures it); on the golden cases,
// the config of the smallest and the one of the largest work-group tile, each
// with one on/off combination of the template's staging flags in turn, and a
// random config that only the hard constraints allow (as `beast tune
// --ignore-soft` and the exporter's nearest-shape entries may run); on the
// other shapes, by turns the smallest tile, the largest tile (staging
// combinations in turn) or a random config, and a hard-only one on the small
// GEMM shapes. (Every config is a fresh PoCL build, 0.1-1 s cold, so the
// configs per shape are what the sweep costs.) Every config must validate: a
// shape a config cannot handle has to be excluded by a hard constraint, never
// by a wrong answer. One CTest entry per template and layout, so they run in
// parallel.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

#include "beast/core/paths.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/template_vars.hpp"
#include "beast/worker/instance_measure.hpp"
#include "beast/worker/instance_prepare.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "harness/render/renderer.hpp"
#include "support/config_picks.hpp"
#include "support/sweep_cases.hpp"

namespace beast {
namespace {

using testing::GemmSweepShapes;
using testing::GoldenConv;

const std::string kSource = BEAST_TEST_SOURCE_DIR;

struct Target {
  std::string template_name;
  Layout layout = Layout::kNCHW;  // conv2d only
  bool conv = true;
};

std::string TargetName(const ::testing::TestParamInfo<Target>& info) {
  std::string name = info.param.template_name;
  std::replace(name.begin(), name.end(), '/', '_');
  return info.param.conv ? name + "_" + LayoutName(info.param.layout) : name;
}

void PrintTo(const Target& t, std::ostream* os) {
  *os << t.template_name << (t.conv ? std::string(" ") + LayoutName(t.layout) : "");
}

// Every template of op with an OpenCL form (the sweep runs on PoCL), in
// every layout it supports.
std::vector<Target> Targets(OpKind op) {
  std::vector<Target> targets;
  for (const auto& name : SpaceSpec::List(kSource + "/kernel_templates")) {
    SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", name);
    if (spec.op != op) continue;
    if (std::find(spec.backends.begin(), spec.backends.end(), Backend::kOpenCL) ==
        spec.backends.end())
      continue;
    if (op == OpKind::kGemm) targets.push_back({name, Layout::kNCHW, false});
    for (Layout layout : spec.layouts) targets.push_back({name, layout, true});
  }
  return targets;
}

// Whether the template computes the shape: Winograd F(m x m, 3 x 3) takes 3 x 3
// filters of stride and dilation 1 only (its hard constraints leave out the
// rest); every other template takes every shape.
bool IsWinograd(const std::string& template_name) {
  return template_name.rfind("conv2d/winograd", 0) == 0;  // the fused and the split one
}

bool Computes(const std::string& template_name, const Conv2dShape& s) {
  if (!IsWinograd(template_name)) return true;
  return s.r == 3 && s.s == 3 && s.stride_h == 1 && s.stride_w == 1 && s.dilation_h == 1 &&
         s.dilation_w == 1;
}

// What the whole sweep shares: the device and the renderer.
struct Shared {
  harness::OpenClContext context{0};
  Paths paths = Paths::Default();
  harness::Renderer renderer{paths.python, paths.render_script, kSource + "/kernel_templates"};
};

class Sweep : public ::testing::TestWithParam<Target> {
 protected:
  static void SetUpTestSuite() { shared_ = std::make_unique<Shared>(); }
  static void TearDownTestSuite() { shared_.reset(); }

  // The default suite builds most kernels without LLVM's optimizations
  // (-cl-opt-disable): on a cold kernel cache, as on a new machine, a
  // config's build is most of what the sweep costs, and unoptimized it is
  // about a third shorter (a golden sweep: 15 s instead of 22 s,
  // 2026-11-28). The full sweep (label sweep) builds every kernel optimized,
  // so the templates meet both. Built optimized here too:
  // - Winograd: unoptimized, its private arrays stay on the stack of PoCL's
  //   work-group function and a config of 2,304 work-items per group crashes
  //   (SIGSEGV); a new template with large private arrays per work-item may
  //   need the same exception (the crash ends its CTest entry, which names
  //   the template);
  // - work-groups of kUnoptimizedItems work-items or more, for the same
  //   reason: direct_nchw's 16 x 16 x 8 group of 32 accumulators each
  //   crashed unoptimized;
  // - problems of more than kUnoptimizedFlops, where running the kernel
  //   costs more than building it: unoptimized, DeepBench's depthwise 5x5 to
  //   11x11 layers (38-39 MFLOP) ran 0.7-1.5 s a config in implicit_gemm.
  //   With them optimized the default sweeps took 251 s instead of 260 s on
  //   a cold kernel cache and 48 s instead of 87 s on a warm one
  //   (`ctest -j2 -LE sweep -R Sweep`, 2026-11-28).
  // The options go to clBuildProgram, not through POCL_EXTRA_BUILD_FLAGS,
  // which PoCL reads once a process; a value the user gives that variable
  // is added to them (and -cl-opt-disable there would crash Winograd's).
  static constexpr double kUnoptimizedFlops = 24e6;
  static constexpr size_t kUnoptimizedItems = 1024;
  std::string BuildOptions(const Problem& problem, const Instance& instance) const {
#ifdef BEAST_FULL_SWEEP
    (void)problem;
    (void)instance;
    return "";
#else
    const size_t items = instance.local[0] * instance.local[1] * instance.local[2];
    const bool optimized = IsWinograd(GetParam().template_name) ||
                           problem.Flops() > kUnoptimizedFlops || items >= kUnoptimizedItems;
    return optimized ? "" : "-cl-opt-disable";
#endif
  }

  // Which configs besides the default a problem gets (see the top).
  enum class Picks { kGolden, kByTurns, kByTurnsAndHardOnly };

  struct Pick {
    Config config;
    // Why it was chosen: "default", "smallest tile SA == 0 and SB == 1", ...
    // (more than one reason when two picks found the same config).
    std::vector<std::string> whys;
    std::string Why() const {
      std::string text;
      for (const auto& w : whys) text += (text.empty() ? "" : "; ") + w;
      return text;
    }
  };

  // The configs checked on problem number i; hard_only when the soft
  // constraints leave nothing for this shape.
  static std::vector<Pick> PicksFor(const testing::ConfigPicker& picker,
                                    const testing::TemplateFlags& flags, bool hard_only, size_t i,
                                    uint64_t seed, Picks picks) {
    std::vector<Pick> chosen;
    auto add = [&](const std::optional<Config>& c, const std::string& why) {
      if (!c) return;
      for (auto& have : chosen) {
        if (have.config.Key() == c->Key()) return have.whys.push_back(why);
      }
      chosen.push_back({*c, {why}});
    };
    BoundSpace space = picker.Where({}, hard_only);
    if (space.Count() == 0) return chosen;
    // The default whenever the hard constraints allow it, as `beast tune`
    // measures it then (the baseline of its speed-ups).
    std::string why;
    Config def = space.DefaultConfig();
    if (space.Check(def, &why, /*hard_only=*/true)) add(def, "default");
    // A tile extreme with a staging combination: from the space the tuner
    // explores where it has the combination, else from what the hard
    // constraints allow.
    const std::vector<std::string> combos = testing::StagingCombinations(flags);
    auto tile = [&](bool largest, const std::string& combo) {
      const char* what = largest ? "largest tile " : "smallest tile ";
      for (bool hard : {hard_only, true}) {
        std::optional<Config> c = largest ? picker.LargestTile({combo}, hard, seed)
                                          : picker.SmallestTile({combo}, hard, seed);
        if (c) return add(c, what + combo + (hard ? " (hard-only)" : ""));
      }
    };
    if (picks == Picks::kGolden) {
      tile(false, combos[i % combos.size()]);
      tile(true, combos[(i + 1) % combos.size()]);
    } else if (i % 3 < 2) {
      tile(i % 3 == 1, combos[(i / 3) % combos.size()]);
    } else {
      add(picker.Random({}, hard_only, seed), "random");
    }
    if (picks != Picks::kByTurns) {
      for (const Config& c : picker.HardOnly(1, seed)) add(c, "hard-only");
    }
    return chosen;
  }

  // Checks the chosen configs of the template on the problem; returns the
  // number of configs run (0 when the hard constraints exclude the shape).
  // Configs come from the space the tuner explores by default or, when the
  // soft constraints leave nothing for this shape, from what the hard ones
  // allow.
  int CheckProblem(const Problem& problem, const ProblemData& data, size_t i, uint64_t seed,
                   Picks picks) {
    const Target& t = GetParam();
    SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", t.template_name);
    harness::OpenClContext& ctx = shared_->context;
    testing::ConfigPicker picker(spec, problem, ctx.device());
    const bool hard_only = picker.Count({}, false) == 0;
    std::vector<Pick> chosen = PicksFor(picker, testing::FlagsOf(spec), hard_only, i, seed, picks);
    if (chosen.empty()) return 0;  // the hard constraints exclude the shape
    BoundSpace space = picker.Where({}, /*hard_only=*/true), soft = picker.Where({}, false);
    DeviceProblem device_problem = UploadProblem(ctx, data);
    harness::BenchmarkPlan once;
    once.warmup = 0;
    once.min_reps = once.max_reps = 1;
    for (const Pick& pick : chosen) {
      const Config& config = pick.config;
      picked_.insert(pick.whys.begin(), pick.whys.end());
      ++configs_;
      std::string why;
      hard_only_ += !soft.Check(config, &why);
      random_hard_only_ += pick.whys.back() == "hard-only";
      Instance instance = space.Instantiate(config);
      std::string source =
          SourcePrelude(problem, Backend::kOpenCL) +
          shared_->renderer.Render(spec.source_rel,
                                   TemplateVars(spec, problem, instance, Backend::kOpenCL));
      harness::LaunchGeometry geometry;
      geometry.dims = 3;
      for (int d = 0; d < 3; ++d) {
        geometry.global[d] = instance.global[d];
        geometry.local[d] = instance.local[d];
      }
      auto start = std::chrono::steady_clock::now();
      Outcome outcome = MeasureInstance(
          ctx, device_problem, source, spec.kernel_name, geometry, SequenceOf(instance), once,
          nullptr, static_cast<int>(instance.winograd_tile), BuildOptions(problem, instance));
      if (getenv("BEAST_SWEEP_TRACE")) {  // where the sweep's time goes
        std::fprintf(
            stderr, "%.3f s (build %.3f s) %s %s [%s]\n",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            outcome.compile_ms.value_or(0) / 1000, problem.Key().c_str(), config.Key().c_str(),
            pick.Why().c_str());
      }
      EXPECT_EQ(outcome.status, beast::Status::kOk)
          << t.template_name << " " << config.Key() << " (" << pick.Why() << ") on "
          << problem.Key() << ": " << outcome.error_text << "\n"
          << outcome.build_log;
    }
    return static_cast<int>(chosen.size());
  }

  // Every staging combination was checked with the smallest and with the
  // largest tile on some shape of the test (from either space).
  void ExpectEveryStagingCombinationAtBothTileExtremes() {
    SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", GetParam().template_name);
    for (const std::string& combo : testing::StagingCombinations(testing::FlagsOf(spec))) {
      for (const char* what : {"smallest tile ", "largest tile "}) {
        EXPECT_TRUE(picked_.count(what + combo) || picked_.count(what + combo + " (hard-only)"))
            << what << combo;
      }
    }
  }

  std::set<std::string> picked_;  // the whys of the configs checked
  // Configs checked; of those, the ones the soft constraints reject, and
  // the ones drawn at random among those.
  int configs_ = 0, hard_only_ = 0, random_hard_only_ = 0;
  static std::unique_ptr<Shared> shared_;
};

std::unique_ptr<Shared> Sweep::shared_;

// How much of the DeepBench / benchdnn list the default suite checks: a
// stratified subset, every shape in the build of this file under the CTest
// label `sweep` (BEAST_FULL_SWEEP), run whenever a template changes. In f32
// every other shape, the second of each pair: it holds every category of the
// list (5 shapes each, 2 or 3 of them here), both batch sizes and the last
// shape, ResNet-50's conv1, alone in its category (each config is a fresh
// PoCL build, most of the sweep's time on a cold kernel cache); in the other
// dtypes every 11th shape from an offset of the dtype's own (so the dtypes
// meet different shapes).
#ifdef BEAST_FULL_SWEEP
constexpr size_t kF32Stride = 1;
constexpr size_t kDtypeStride = 1;
#else
constexpr size_t kF32Stride = 2;
constexpr size_t kDtypeStride = 11;
#endif

class ConvSweep : public Sweep {};
class GemmSweep : public Sweep {};

TEST_P(ConvSweep, OnnxGoldenConvolutions) {
  const Target& t = GetParam();
  std::vector<GoldenConv> cases =
      testing::LoadGoldenConvs(kSource + "/tests/data/onnx_conv_cases.txt");
  ASSERT_EQ(cases.size(), 17u);
  int served = 0, computed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const GoldenConv& g = cases[i];
    computed += Computes(t.template_name, g.shape);
    Conv2dShape shape = g.shape;
    shape.layout = t.layout;
    Problem problem = Problem::Conv2d(shape);
    std::vector<float> beast_reference;
    ProblemData data = testing::GoldenProblemData(g, t.layout, &beast_reference);
    // beast's own reference agrees with ONNX's expected output.
    ASSERT_EQ(data.reference.size(), beast_reference.size()) << g.name;
    for (size_t j = 0; j < beast_reference.size(); ++j) {
      ASSERT_NEAR(beast_reference[j], data.reference[j], 1e-4 * (1 + data.abs_reference[j]))
          << g.name << " output " << j;
    }
    served += CheckProblem(problem, data, i, 1000 + i, Picks::kGolden) > 0;
  }
  // Every golden case uses features every conv template supports, Winograd's
  // every 3 x 3 stride-1 case.
  EXPECT_EQ(served, computed);
  EXPECT_EQ(computed, IsWinograd(t.template_name) ? 5 : 17);
  ExpectEveryStagingCombinationAtBothTileExtremes();
  EXPECT_EQ(random_hard_only_, computed) << "one config only the hard constraints allow per case";
  std::printf("%d configs on %d cases, %d of them hard-only\n", configs_, computed, hard_only_);
}

TEST_P(ConvSweep, DeepBenchAndBenchdnnShapes) {
  const Target& t = GetParam();
  std::vector<std::string> shapes =
      testing::LoadShapeList(kSource + "/tests/data/conv_sweep_shapes.txt");
  ASSERT_EQ(shapes.size(), 56u);
  // benchdnn's batch of 2 where it has one, ResNet-50's conv1 among them.
  EXPECT_EQ(std::count_if(shapes.begin(), shapes.end(),
                          [](const std::string& s) { return s.rfind("conv2d:N=2,", 0) == 0; }),
            14);
  int served = 0, computed = 0;
  // Turn: the shape's place among those checked, which picks its configs by
  // turns (the full sweep checks every shape: its turn is its index).
  for (size_t i = kF32Stride - 1, turn = 0; i < shapes.size(); i += kF32Stride, ++turn) {
    // Alternate bias so both kernel signatures meet every kind of shape.
    Problem problem =
        Problem::Parse(shapes[i] + ",layout=" + LayoutName(t.layout) + (turn % 2 ? ",bias=1" : ""));
    computed += Computes(t.template_name, problem.conv());
    ProblemData data = MakeProblemData(problem);
    served += CheckProblem(problem, data, turn, 2000 + i, Picks::kByTurns) > 0;
  }
  EXPECT_EQ(served, computed) << "shapes the hard constraints exclude";
  ExpectEveryStagingCombinationAtBothTileExtremes();
  std::printf("%d configs on %zu of %zu shapes, %d of them hard-only\n", configs_,
              shapes.size() / kF32Stride, shapes.size(), hard_only_);
}

TEST_P(GemmSweep, ShapesInEveryTransposition) {
  std::vector<std::string> shapes = GemmSweepShapes();
  int served = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Problem problem = Problem::Parse(shapes[i]);
    ProblemData data = MakeProblemData(problem);
    // The first 16 shapes (1x1x1 and 17x33x9) are small enough for one
    // more config, one only the hard constraints allow.
    served += CheckProblem(problem, data, i, 3000 + i,
                           i < 16 ? Picks::kByTurnsAndHardOnly : Picks::kByTurns) > 0;
  }
  EXPECT_EQ(served, static_cast<int>(shapes.size()));
  ExpectEveryStagingCombinationAtBothTileExtremes();
  EXPECT_EQ(random_hard_only_, 16) << "one config only the hard constraints allow per small shape";
  std::printf("%d configs on %zu shapes, %d of them hard-only\n", configs_, shapes.size(),
              hard_only_);
}

// The dtypes besides f32 a template lists (every template renders f64; f16
// and bf16 where its space says so): see kDtypeStride at the top.

std::vector<DType> OtherDtypes(const std::string& template_name) {
  std::vector<DType> dtypes;
  for (DType d : SpaceSpec::Load(kSource + "/kernel_templates", template_name).dtypes)
    if (d != DType::kF32) dtypes.push_back(d);
  return dtypes;
}

size_t FirstShapeOf(DType dtype) {
  return kDtypeStride == 1 ? 0 : static_cast<size_t>(dtype) * 3 % kDtypeStride;
}

TEST_P(ConvSweep, OtherDtypeShapes) {
  const Target& t = GetParam();
  std::vector<std::string> shapes =
      testing::LoadShapeList(kSource + "/tests/data/conv_sweep_shapes.txt");
  const std::vector<DType> dtypes = OtherDtypes(t.template_name);
  ASSERT_FALSE(dtypes.empty());
  int served = 0, tried = 0, computed = 0;
  for (DType dtype : dtypes) {
    for (size_t i = FirstShapeOf(dtype); i < shapes.size(); i += kDtypeStride, ++tried) {
      Problem problem = Problem::Parse(shapes[i] + ",layout=" + LayoutName(t.layout) +
                                       (i % 2 ? ",bias=1" : "") + ",dtype=" + DTypeName(dtype));
      ProblemData data = MakeProblemData(problem);
      ASSERT_EQ(dtype == DType::kF64 ? data.reference64.size() : data.reference.size(),
                data.output_count);
      served += CheckProblem(problem, data, i, 4000 + i, Picks::kByTurns) > 0;
      computed += Computes(t.template_name, problem.conv());
    }
  }
  EXPECT_EQ(served, computed) << "shapes the hard constraints exclude";
  std::printf("%zu dtypes: %d configs on %d shapes\n", dtypes.size(), configs_, tried);
}

#ifdef BEAST_FULL_SWEEP
// The ONNX golden shapes (groups, dilation, asymmetric strides and padding,
// tiny images) in every other dtype, on random data against beast's own
// reference: their outputs are ONNX's in f32 only. Their two tile extremes
// met misaligned f16 vectors there that no DeepBench shape did.
TEST_P(ConvSweep, OtherDtypeGoldenShapes) {
  const Target& t = GetParam();
  std::vector<GoldenConv> cases =
      testing::LoadGoldenConvs(kSource + "/tests/data/onnx_conv_cases.txt");
  ASSERT_EQ(cases.size(), 17u);
  int served = 0, tried = 0, computed = 0;
  for (DType dtype : OtherDtypes(t.template_name)) {
    for (size_t i = 0; i < cases.size(); ++i, ++tried) {
      Conv2dShape shape = cases[i].shape;
      shape.layout = t.layout;
      Problem problem = Problem::Conv2d(shape, dtype);
      ProblemData data = MakeProblemData(problem);
      served += CheckProblem(problem, data, i, 6000 + i, Picks::kGolden) > 0;
      computed += Computes(t.template_name, shape);
    }
  }
  EXPECT_EQ(served, computed) << "golden shapes the hard constraints exclude";
  std::printf("%d configs on %d golden shapes\n", configs_, tried);
}
#endif

TEST_P(GemmSweep, OtherDtypeShapes) {
  std::vector<std::string> shapes = GemmSweepShapes();
  const std::vector<DType> dtypes = OtherDtypes(GetParam().template_name);
  ASSERT_FALSE(dtypes.empty());
  int served = 0, tried = 0;
  for (DType dtype : dtypes) {
    for (size_t i = FirstShapeOf(dtype); i < shapes.size(); i += kDtypeStride, ++tried) {
      Problem problem = Problem::Parse(shapes[i] + ",dtype=" + DTypeName(dtype));
      ProblemData data = MakeProblemData(problem);
      served += CheckProblem(problem, data, i, 5000 + i, Picks::kByTurns) > 0;
    }
  }
  EXPECT_EQ(served, tried);
  std::printf("%zu dtypes: %d configs on %d shapes\n", dtypes.size(), configs_, tried);
}

INSTANTIATE_TEST_SUITE_P(Templates, ConvSweep, ::testing::ValuesIn(Targets(OpKind::kConv2d)),
                         TargetName);
INSTANTIATE_TEST_SUITE_P(Templates, GemmSweep, ::testing::ValuesIn(Targets(OpKind::kGemm)),
                         TargetName);

}  // namespace
}  // namespace beast
