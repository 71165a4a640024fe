// The post-compile stage per backend (beast/space/post_compile.hpp): which
// post-compile constraints OpenCL and CUDA can apply, the one line naming
// those OpenCL cannot (each once over several spaces), and the check of one
// compiled config with exactly the resources a backend reports.
#include "beast/space/post_compile.hpp"

#include <gtest/gtest.h>

#include "beast/space/user_constraints.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::TempTemplates;
using testing::TestDevice;

const char kSpace[] = R"YAML(op: gemm
source: s.cl.j2
kernel: k
parameters:
  - {name: T, values: [1, 2, 4], default: 1}
constraints:
  - expr: "local_mem_used <= 1024 * T"
    stage: after_compile
  - expr: "registers <= 32 and spills == 0"
    stage: after_compile
  - "T <= M"
launch: {global: [1], local: [1]}
)YAML";

TEST(PostCompile, BackendsReportWhatTheirCompilersSay) {
  EXPECT_EQ(ReportedResources(Backend::kOpenCL),
            (std::vector<std::string>{"stack_bytes", "local_mem_used"}));
  EXPECT_EQ(ReportedResources(Backend::kCuda),
            (std::vector<std::string>{"registers", "spills", "stack_bytes", "local_mem_used"}));
}

TEST(PostCompile, OpenClAppliesTheConstraintsOnMemoryOnly) {
  TempTemplates t;
  SpaceSpec spec = SpaceSpec::Load(t.dir(), t.Add("s", kSpace));
  BindOptions options;
  options.extra.push_back(ParseUserConstraint("hard: stack_bytes <= 512"));
  options.extra.push_back(ParseUserConstraint("spills <= 8"));
  BoundSpace space(spec, Problem::Parse("gemm:M=8,N=8,K=8"), TestDevice(), options);
  std::vector<const ConstraintSpec*> applied = AppliedPostCompile(space, Backend::kOpenCL);
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[0]->expr.text(), "local_mem_used <= 1024 * T");
  EXPECT_EQ(applied[1]->expr.text(), "stack_bytes <= 512");
  std::vector<const ConstraintSpec*> unapplied = UnappliedPostCompile(space, Backend::kOpenCL);
  ASSERT_EQ(unapplied.size(), 2u);
  EXPECT_EQ(unapplied[1]->expr.text(), "spills <= 8");
  EXPECT_EQ(AppliedPostCompile(space, Backend::kCuda).size(), 4u);
  EXPECT_TRUE(UnappliedPostCompile(space, Backend::kCuda).empty());

  // Two spaces with the same template constraint: named once, in one line.
  BoundSpace other(spec, Problem::Parse("gemm:M=2,N=8,K=8"), TestDevice());
  EXPECT_EQ(UnappliedPostCompileLine({&space, &other}, Backend::kOpenCL),
            "post-compile constraints not applied: opencl reports no registers or spills: "
            "\"registers <= 32 and spills == 0\" (" +
                spec.space_path + ":9), \"spills <= 8\" (command line)");
  EXPECT_EQ(UnappliedPostCompileLine({&space, &other}, Backend::kCuda), "");

  // OpenCL's report: local and private memory.
  Config two = Config::ParseKey("T=2");
  CompiledResources opencl;
  opencl.stack_bytes = 0;
  opencl.shared_bytes = 2048;
  EXPECT_EQ(PostCompileViolation(space, two, opencl), std::nullopt);
  opencl.shared_bytes = 2049;
  EXPECT_EQ(PostCompileViolation(space, two, opencl),
            "violates hard constraint \"local_mem_used <= 1024 * T\" (" + spec.space_path +
                ":7) after compile");
  opencl.shared_bytes = 0;
  opencl.stack_bytes = 513;
  EXPECT_EQ(PostCompileViolation(space, two, opencl),
            std::optional<std::string>(
                "violates hard constraint \"stack_bytes <= 512\" (command line) after compile"));
  // ptxas's report: the register constraint applies too.
  CompiledResources cuda = {40, 0, 0, 0};
  EXPECT_EQ(PostCompileViolation(space, two, cuda),
            "violates hard constraint \"registers <= 32 and spills == 0\" (" + spec.space_path +
                ":9) after compile");
  cuda.registers = 32;
  EXPECT_EQ(PostCompileViolation(space, two, cuda), std::nullopt);
  EXPECT_EQ(cuda.Bindings(),
            (std::map<std::string, int64_t>{
                {"local_mem_used", 0}, {"registers", 32}, {"spills", 0}, {"stack_bytes", 0}}));
}

}  // namespace
}  // namespace beast
