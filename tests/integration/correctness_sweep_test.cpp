// Correctness sweep on PoCL: every conv2d template, in every layout it
// supports, on the 17 ONNX golden convolutions and the DeepBench / benchdnn
// shapes of tests/data; every GEMM template on all four transpositions of odd
// shapes. Several configs per (template, shape): the default and, on the
// golden cases, the first and the last valid config (smallest and largest
// values of the leading parameters); on the other shapes, by turns the
// first, the last or a seeded random one. (Every config is a fresh PoCL
// build, 0.1-1 s cold, so the configs per shape are what the sweep costs.)
// Every config must validate: a shape a
// config cannot handle has to be excluded by a hard constraint, never by a
// wrong answer. One CTest entry per template and layout, so they run in
// parallel.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>

#include "beast/bound_space.hpp"
#include "beast/paths.hpp"
#include "beast/template_vars.hpp"
#include "beast/tuner/instance_measure.hpp"
#include "harness/opencl_context.hpp"
#include "harness/opencl_devices.hpp"
#include "harness/renderer.hpp"
#include "sweep_cases.hpp"

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

// Every template of op, in every layout it supports.
std::vector<Target> Targets(OpKind op) {
  std::vector<Target> targets;
  for (const auto& name : SpaceSpec::List(kSource + "/kernel_templates")) {
    SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", name);
    if (spec.op != op) continue;
    if (op == OpKind::kGemm) targets.push_back({name, Layout::kNCHW, false});
    for (Layout layout : spec.layouts) targets.push_back({name, layout, true});
  }
  return targets;
}

// What the whole sweep shares: the device and the renderer.
struct Shared {
  harness::OpenCLContext context{0};
  Paths paths = Paths::Default();
  harness::Renderer renderer{paths.python, paths.render_script, kSource + "/kernel_templates"};
};

class Sweep : public ::testing::TestWithParam<Target> {
 protected:
  static void SetUpTestSuite() { shared_ = std::make_unique<Shared>(); }
  static void TearDownTestSuite() { shared_.reset(); }

  // Which configs besides the default a problem gets.
  enum class Picks { kFirstAndLast, kByTurns };

  // The configs checked on one problem.
  static std::vector<Config> ConfigsFor(const BoundSpace& space, uint64_t seed, Picks picks) {
    std::vector<Config> configs;
    uint64_t count = space.Count();
    if (count == 0) return configs;
    auto add = [&](const Config& c) {
      for (const auto& have : configs) {
        if (have.Key() == c.Key()) return;
      }
      configs.push_back(c);
    };
    std::string why;
    Config def = space.DefaultConfig();
    if (space.Check(def, &why)) add(def);
    if (picks == Picks::kFirstAndLast || seed % 3 == 0) add(space.At(0));
    if (picks == Picks::kFirstAndLast || seed % 3 == 1) add(space.At(count - 1));
    if (picks == Picks::kByTurns && seed % 3 == 2) {
      for (const auto& c : space.Sample(1, seed)) add(c);
    }
    return configs;
  }

  // Checks every chosen config of the template on the problem; returns the
  // number of configs run (0 when the hard constraints exclude the shape).
  // Configs come from the space the tuner explores by default or, when the
  // soft constraints leave nothing for this shape, from what the hard ones
  // allow.
  int CheckProblem(const Problem& problem, const ProblemData& data, uint64_t seed, Picks picks) {
    const Target& t = GetParam();
    SpaceSpec spec = SpaceSpec::Load(kSource + "/kernel_templates", t.template_name);
    harness::OpenCLContext& ctx = shared_->context;
    BindOptions options;
    options.ignore_soft = BoundSpace(spec, problem, ctx.device()).Count() == 0;
    BoundSpace space(spec, problem, ctx.device(), options);
    std::vector<Config> configs = ConfigsFor(space, seed, picks);
    if (configs.empty()) return 0;  // the hard constraints exclude the shape
    DeviceProblem device_problem = UploadProblem(ctx, data);
    harness::BenchmarkPlan once;
    once.warmup = 0;
    once.min_reps = once.max_reps = 1;
    for (const Config& config : configs) {
      Instance instance = space.Instantiate(config);
      std::string source = shared_->renderer.Render(
          spec.source_rel, TemplateVarsJson(spec, problem, instance, Backend::kOpenCL));
      harness::LaunchGeometry geometry;
      geometry.dims = 3;
      for (int d = 0; d < 3; ++d) {
        geometry.global[d] = instance.global[d];
        geometry.local[d] = instance.local[d];
      }
      auto start = std::chrono::steady_clock::now();
      Outcome outcome = MeasureInstance(ctx, device_problem, source, spec.kernel_name, geometry, once);
      if (getenv("BEAST_SWEEP_TRACE")) {  // where the sweep's time goes
        std::fprintf(stderr, "%.3f s (build %.3f s) %s %s\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                     outcome.compile_ms.value_or(0) / 1000, problem.Key().c_str(),
                     config.Key().c_str());
      }
      EXPECT_EQ(outcome.status, "ok") << t.template_name << " " << config.Key() << " on "
                                      << problem.Key() << ": " << outcome.error_text << "\n"
                                      << outcome.build_log;
    }
    return static_cast<int>(configs.size());
  }

  static std::unique_ptr<Shared> shared_;
};

std::unique_ptr<Shared> Sweep::shared_;

class ConvSweep : public Sweep {};
class GemmSweep : public Sweep {};

TEST_P(ConvSweep, OnnxGoldenConvolutions) {
  const Target& t = GetParam();
  std::vector<GoldenConv> cases = testing::LoadGoldenConvs(kSource + "/tests/data/onnx_conv_cases.txt");
  ASSERT_EQ(cases.size(), 17u);
  int served = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const GoldenConv& g = cases[i];
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
    served += CheckProblem(problem, data, 1000 + i, Picks::kFirstAndLast) > 0;
  }
  // Every golden case uses features every conv template supports.
  EXPECT_EQ(served, 17);
}

TEST_P(ConvSweep, DeepBenchAndBenchdnnShapes) {
  const Target& t = GetParam();
  std::vector<std::string> shapes =
      testing::LoadShapeList(kSource + "/tests/data/conv_sweep_shapes.txt");
  ASSERT_GE(shapes.size(), 40u);
  int served = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    // Alternate bias so both kernel signatures meet every kind of shape.
    Problem problem = Problem::Parse(shapes[i] + ",layout=" + LayoutName(t.layout) +
                                     (i % 2 ? ",bias=1" : ""));
    ProblemData data = MakeProblemData(problem);
    served += CheckProblem(problem, data, 2000 + i, Picks::kByTurns) > 0;
  }
  EXPECT_EQ(served, static_cast<int>(shapes.size())) << "shapes the hard constraints exclude";
}

TEST_P(GemmSweep, ShapesInEveryTransposition) {
  std::vector<std::string> shapes = GemmSweepShapes();
  int served = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Problem problem = Problem::Parse(shapes[i]);
    ProblemData data = MakeProblemData(problem);
    served += CheckProblem(problem, data, 3000 + i, Picks::kByTurns) > 0;
  }
  EXPECT_EQ(served, static_cast<int>(shapes.size()));
}

INSTANTIATE_TEST_SUITE_P(Templates, ConvSweep, ::testing::ValuesIn(Targets(OpKind::kConv2d)),
                         TargetName);
INSTANTIATE_TEST_SUITE_P(Templates, GemmSweep, ::testing::ValuesIn(Targets(OpKind::kGemm)),
                         TargetName);

}  // namespace
}  // namespace beast
