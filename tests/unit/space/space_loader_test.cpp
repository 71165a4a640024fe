// Space descriptions: every malformed file is one line naming file and line.
#include <gtest/gtest.h>

#include "beast/space/space_spec.hpp"
#include "beast/space/user_constraints.hpp"
#include "support/space_test_util.hpp"

namespace beast {
namespace {

using testing::TempTemplates;

std::string LoadError(TempTemplates& t, const std::string& yaml,
                      ErrorCode expected = ErrorCode::kBadInput) {
  std::string name = t.Add("bad", yaml);
  try {
    SpaceSpec::Load(t.dir(), name);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    std::string what = e.what();
    std::string prefix = t.dir() + "/t/bad.space.yaml";
    if (what.rfind(prefix, 0) == 0) what = "FILE" + what.substr(prefix.size());
    return what;
  }
  return "(loaded)";
}

const char kHead[] = "op: gemm\nsource: bad.cl.j2\nkernel: k\n";
const char kLaunch[] = "launch: {global: [1], local: [1]}\n";

TEST(SpaceLoader, AnUnknownBackendIsNamedWithItsLine) {
  TempTemplates t;
  EXPECT_EQ(LoadError(t, std::string(kHead) + "backends: [cuda, vulkan]\n" +
                             "parameters:\n  - {name: A, values: [1, 2]}\n" + kLaunch),
            "FILE:4: backend must be opencl or cuda, not \"vulkan\"");
  EXPECT_EQ(LoadError(t, std::string(kHead) + "backends: []\n" +
                             "parameters:\n  - {name: A, values: [1, 2]}\n" + kLaunch),
            "FILE:4: backends lists no backend");
  EXPECT_EQ(LoadError(t, std::string(kHead) + "tensor_cores: yes please\n" +
                             "parameters:\n  - {name: A, values: [1, 2]}\n" + kLaunch),
            "FILE:4: tensor_cores must be true or false, not \"yes please\"");
}

TEST(SpaceLoader, ReportsFileAndLine) {
  TempTemplates t;
  EXPECT_EQ(
      LoadError(t, std::string(kHead) +
                       "parameters:\n  - {name: A, values: [1, 2]}\n  - {name: B, values: []}\n" +
                       kLaunch),
      "FILE:6: parameter B has an empty value list");
  EXPECT_EQ(LoadError(t, std::string(kHead) +
                             "parameters:\n  - {name: A, values: [1, 2], colour: red}\n" + kLaunch),
            "FILE:5: unknown key \"colour\" in a parameter (allowed: applied, default, "
            "description, name, pow2, range, "
            "values)");
  EXPECT_EQ(
      LoadError(t, std::string(kHead) +
                       "parameters:\n  - {name: A, values: [1, 2]}\nconstraints:\n  - \"A < Z\"\n" +
                       kLaunch),
      "FILE:7: constraint \"A < Z\" names unknown parameter \"Z\"");
  EXPECT_EQ(
      LoadError(t,
                std::string(kHead) +
                    "parameters:\n  - {name: A, range: [1, B]}\n  - {name: B, values: [1, 2]}\n" +
                    kLaunch),
      "FILE:5: value set of A uses B before it is bound (declare it earlier)");
  EXPECT_EQ(LoadError(t, std::string(kHead) +
                             "parameters:\n  - {name: A, values: [1]}\nderived:\n  - {name: X, "
                             "expr: Y + A}\n  - {name: Y, expr: X * 2}\n" +
                             kLaunch),
            "FILE:7: derived values form a cycle: X -> Y -> X");
  EXPECT_EQ(
      LoadError(t, std::string(kHead) + "parameters:\n  - {name: A, values: [1, 2 +]}\n" + kLaunch)
          .substr(0, 44),
      "FILE:5: parameter A: expression \"2 +\": posit");
  EXPECT_EQ(
      LoadError(t, std::string(kHead) + "parameters:\n  - {name: A, values: [1, 2]\n" + kLaunch)
          .substr(0, 7),
      "FILE:6:");
  EXPECT_EQ(
      LoadError(
          t,
          "op: gemm\nsource: missing.cl.j2\nkernel: k\nparameters:\n  - {name: A, values: [1]}\n" +
              std::string(kLaunch)),
      "FILE:2: template source " + t.dir() + "/t/missing.cl.j2 does not exist");
  EXPECT_EQ(
      LoadError(t, std::string(kHead) + "parameters:\n  - {name: M, values: [1]}\n" + kLaunch),
      "FILE:5: parameter M shadows a problem or device name");
  EXPECT_EQ(LoadError(t, std::string(kHead) +
                             "parameters:\n  - {name: A, values: [1]}\nconstraints:\n  - {expr: A "
                             "> 0, kind: firm}\n" +
                             kLaunch),
            "FILE:7: constraint kind must be hard or soft, not \"firm\"");
  EXPECT_EQ(
      LoadError(
          t,
          std::string(kHead) +
              "parameters:\n  - {name: A, values: [1]}\nconstraints:\n  - \"registers <= 64\"\n" +
              kLaunch),
      "FILE:7: constraint \"registers <= 64\" names unknown parameter \"registers\" (compiled "
      "resources need "
      "stage: after_compile)");
}

// What yaml-cpp reads without a word, or rejected without a line: a key
// given twice (the first was used), names no expression can read, a list
// written as a map, a launch expression's unknown name, a derived value's
// parse error (now with its name).
TEST(SpaceLoader, DuplicateKeysBadNamesAndShapesAreNamedWithTheirLine) {
  TempTemplates t;
  const std::string params = "parameters:\n  - {name: A, values: [1, 2]}\n";
  EXPECT_EQ(LoadError(t, std::string(kHead) + "parameters:\n  - name: A\n    values: [1, 2]\n" +
                             "    values: [8]\n" + kLaunch),
            "FILE:7: \"values\" given twice in a parameter");
  EXPECT_EQ(LoadError(t, std::string(kHead) + params + "constraints:\n  - expr: A > 1\n" +
                             "    expr: A > 100\n" + kLaunch),
            "FILE:8: \"expr\" given twice in a constraint");
  for (const char* name : {"not", "X Y", "min", "True"}) {
    EXPECT_EQ(LoadError(t, std::string(kHead) + "parameters:\n  - {name: \"" + name +
                               "\", values: [1]}\n" + kLaunch),
              "FILE:5: parameter \"" + std::string(name) +
                  "\" is not a name an expression can read (letters, digits and _, not a word "
                  "of the expression language)")
        << name;
  }
  EXPECT_EQ(LoadError(t, std::string(kHead) + "parameters:\n  - {name: registers, values: [1]}\n" +
                             kLaunch),
            "FILE:5: parameter registers shadows a compiled resource (after-compile constraints)");
  // The renderer's own names would hide the parameter from the template.
  EXPECT_EQ(LoadError(t, std::string(kHead) + params + "derived:\n  - {name: DTYPE, expr: A}\n" +
                             kLaunch),
            "FILE:7: derived value DTYPE shadows a name the renderer sets (LAYOUT, KERNEL_NAME, "
            "BACKEND, DTYPE, STORAGE)");
  // Every name of Problem::Variables() is the problem's: col_major (GEMM)
  // and bias (conv2d) too.
  EXPECT_EQ(LoadError(t, std::string(kHead) + "parameters:\n  - {name: col_major, values: [1]}\n" +
                             kLaunch),
            "FILE:5: parameter col_major shadows a problem or device name");
  EXPECT_EQ(LoadError(t,
                      "op: conv2d\nsource: bad.cl.j2\nkernel: k\nlayouts: [NCHW]\n"
                      "parameters:\n  - {name: bias, values: [1]}\n" +
                          std::string(kLaunch)),
            "FILE:6: parameter bias shadows a problem or device name");
  // layouts, dtypes and backends are lists.
  EXPECT_EQ(LoadError(t, "op: conv2d\nsource: bad.cl.j2\nkernel: k\nlayouts: {a: NCHW}\n" + params +
                             kLaunch),
            "FILE:4: layouts must be a list ([A, B])");
  EXPECT_EQ(
      LoadError(t, "op: conv2d\nsource: bad.cl.j2\nkernel: k\nlayouts: NCHW\n" + params + kLaunch),
      "FILE:4: layouts must be a list ([A, B])");
  EXPECT_EQ(
      LoadError(t, "op: conv2d\nsource: bad.cl.j2\nkernel: k\nlayouts: []\n" + params + kLaunch),
      "FILE:4: layouts lists no layout");
  EXPECT_EQ(LoadError(t, std::string(kHead) + "dtypes: {f32: 1}\n" + params + kLaunch),
            "FILE:4: dtypes must be a list ([A, B])");
  EXPECT_EQ(LoadError(t, std::string(kHead) + "backends: cuda\n" + params + kLaunch),
            "FILE:4: backends must be a list ([A, B])");
  EXPECT_EQ(LoadError(t, std::string(kHead) + params + "derived: {D: A + 1}\n" + kLaunch),
            "FILE:6: derived must be a list of {name, expr}");
  EXPECT_EQ(LoadError(t, std::string(kHead) + params + "constraints: {A: 1}\n" + kLaunch),
            "FILE:6: constraints must be a list");
  EXPECT_EQ(LoadError(t, std::string(kHead) + params + "derived:\n  - {name: D, expr: A +* 2}\n" +
                             kLaunch)
                .substr(0, 45),
            "FILE:7: derived value D: expression \"A +* 2\":");
  EXPECT_EQ(LoadError(t, std::string(kHead) + params + "launch: {global: [AA], local: [1]}\n"),
            "FILE:6: launch expression \"AA\" names unknown parameter \"AA\"");
  EXPECT_EQ(LoadError(t, std::string(kHead) + params +
                             "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                             "    - {kernel: [x], global: [1], local: [1]}\n"),
            "FILE:10: launch before: kernel must be a single value");
}

TEST(SpaceLoader, LaunchTimeSettings) {
  TempTemplates t;
  EXPECT_EQ(
      LoadError(t, std::string(kHead) +
                       "parameters:\n  - {name: A, values: [1], applied: runtime}\n" + kLaunch),
      "FILE:5: parameter A: applied must be source or launch, not \"runtime\"");
  EXPECT_EQ(LoadError(t, std::string(kHead) + "parameters:\n  - {name: A, values: [1]}\n" +
                             "launch: {global: [1], local: [1], dynamic_local_bytes: A * Z}\n"),
            "FILE:6: launch expression \"A * Z\" names unknown parameter \"Z\"");
  EXPECT_EQ(
      LoadError(t, std::string(kHead) + "parameters:\n  - {name: A, values: [1]}\n" +
                       "launch: {global: [1], local: [1], carveout: 50}\n"),
      "FILE:6: unknown key \"carveout\" in launch (allowed: before, dynamic_local_bytes, global, "
      "local, shared_carveout, workspace_bytes)");
  std::string name =
      t.Add("ok", std::string(kHead) +
                      "parameters:\n  - {name: A, values: [1, 2]}\n"
                      "  - {name: WG, values: [4, 8], applied: launch}\n"
                      "launch: {global: [64], local: [WG], dynamic_local_bytes: WG * A * 4,"
                      " shared_carveout: 25 * A}\n");
  SpaceSpec spec = SpaceSpec::Load(t.dir(), name);
  EXPECT_FALSE(spec.params[0].at_launch);
  EXPECT_TRUE(spec.params[1].at_launch);
  EXPECT_TRUE(spec.has_dynamic_local);
  EXPECT_EQ(spec.launch_dynamic_local_bytes.text(), "WG * A * 4");
  EXPECT_TRUE(spec.has_shared_carveout);
  EXPECT_EQ(spec.launch_shared_carveout.text(), "25 * A");
}

TEST(SpaceLoader, LaunchesBeforeTheKernelAndTheirWorkspace) {
  TempTemplates t;
  const std::string params = std::string(kHead) + "parameters:\n  - {name: A, values: [0, 1]}\n";
  std::string name = t.Add("bad", params +
                                      "launch:\n  global: [64]\n  local: [8]\n"
                                      "  before:\n"
                                      "    - {kernel: k_first, when: A, global: [16, 2], "
                                      "local: [4], prepare: true}\n"
                                      "    - {kernel: k_second, global: [8], local: [8]}\n"
                                      "  workspace_bytes: A * 256\n");
  SpaceSpec spec = SpaceSpec::Load(t.dir(), name);
  ASSERT_EQ(spec.stages_before.size(), 2u);
  EXPECT_EQ(spec.stages_before[0].kernel, "k_first");
  EXPECT_EQ(spec.stages_before[0].when.text(), "A");
  EXPECT_EQ(spec.stages_before[0].global[1].text(), "2");
  EXPECT_EQ(spec.stages_before[0].local[1].text(), "1");
  EXPECT_EQ(spec.stages_before[1].when.text(), "1");
  EXPECT_TRUE(spec.stages_before[0].prepare);
  EXPECT_FALSE(spec.stages_before[1].prepare);
  EXPECT_TRUE(spec.has_workspace);
  EXPECT_EQ(spec.launch_workspace_bytes.text(), "A * 256");
  // Each mistake in one line naming the file and line.
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before: k_first\n"),
            "FILE:9: launch before must list the kernels launched first");
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k_first, global: [1]}\n"),
            "FILE:10: launch before k_first lacks \"local\"");
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k, global: [1], local: [1]}\n"),
            "FILE:10: launch before: kernel \"k\" must name another kernel");
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k_first, global: [1], local: [1], if: A}\n"),
            "FILE:10: unknown key \"if\" in launch before (allowed: global, kernel, local, "
            "prepare, when)");
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k_first, global: [B], local: [1]}\n"),
            "FILE:10: launch expression \"B\" names unknown parameter \"B\"");
  // A prepare stage: a flag, first in the list, with a workspace to fill.
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k_first, global: [1], local: [1], prepare: 1}\n"
                                  "  workspace_bytes: 4\n"),
            "FILE:10: launch before k_first prepare must be true or false, not \"1\"");
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k_first, global: [1], local: [1]}\n"
                                  "    - {kernel: k_w, global: [1], local: [1], prepare: true}\n"
                                  "  workspace_bytes: 4\n"),
            "FILE:11: launch before k_w: a prepare stage must come before the stages that are not");
  EXPECT_EQ(LoadError(t, params + "launch:\n  global: [1]\n  local: [1]\n  before:\n"
                                  "    - {kernel: k_w, global: [1], local: [1], prepare: true}\n"),
            "FILE:7: launch before k_w is a prepare stage: its result lives in the workspace, so "
            "launch needs workspace_bytes");
}

TEST(SpaceLoader, UnknownTemplateListsTheKnownOnes) {
  TempTemplates t;
  t.Add("one", std::string(kHead) + "parameters:\n  - {name: A, values: [1]}\n" + kLaunch);
  try {
    SpaceSpec::Load(t.dir(), "t/two");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_EQ(std::string(e.what()), "unknown template \"t/two\" (known: t/one)");
  }
}

TEST(UserConstraints, CommandLineAndFiles) {
  ConstraintSpec soft = ParseUserConstraint("MWG >= 32");
  EXPECT_EQ(soft.kind, ConstraintKind::kSoft);
  EXPECT_EQ(soft.cls, ConstraintClass::kUser);
  EXPECT_EQ(soft.expr.text(), "MWG >= 32");
  ConstraintSpec hard = ParseUserConstraint("hard: MWG <= M");
  EXPECT_EQ(hard.kind, ConstraintKind::kHard);
  EXPECT_EQ(hard.expr.text(), "MWG <= M");
  EXPECT_THROW(ParseUserConstraint("MWG >="), Error);
  EXPECT_EQ(hard.stage, ConstraintStage::kBeforeCompile);
  // One that reads the compiled binary's resources is checked after compiling.
  ConstraintSpec registers = ParseUserConstraint("hard: registers <= 64 + MWG");
  EXPECT_EQ(registers.stage, ConstraintStage::kAfterCompile);
  EXPECT_EQ(registers.kind, ConstraintKind::kHard);
  EXPECT_EQ(ParseUserConstraint("local_mem_used <= 1024").stage, ConstraintStage::kAfterCompile);
}

}  // namespace
}  // namespace beast

namespace beast {
namespace {

// A template's hash changes with everything that decides its code: its own
// parts (the folder beside it named after it) and the shared macros too, so a
// database never takes results of other code for this template's.
TEST(SpaceLoader, HashCoversTheTemplatesPartsAndTheSharedMacros) {
  testing::TempTemplates t;
  const std::string name = t.Add("parted", R"YAML(op: gemm
source: parted.cl.j2
kernel: k
parameters:
  - {name: A, values: [1, 2], default: 1}
launch:
  global: [M, N, 1]
  local: [1, 1, 1]
)YAML");
  namespace fs = std::filesystem;
  const fs::path parts = fs::path(t.dir()) / "t" / "parted";
  fs::create_directories(parts);
  fs::create_directories(fs::path(t.dir()) / "_common");
  std::ofstream(parts / "loads.j2") << "{% macro load() %}a{% endmacro %}\n";
  const std::string before = SpaceSpec::Load(t.dir(), name).hash;
  EXPECT_EQ(SpaceSpec::Load(t.dir(), name).hash, before);
  std::ofstream(parts / "loads.j2") << "{% macro load() %}b{% endmacro %}\n";
  const std::string part_edited = SpaceSpec::Load(t.dir(), name).hash;
  EXPECT_NE(part_edited, before);
  std::ofstream(fs::path(t.dir()) / "_common" / "dialect.j2") << "{# shared #}\n";
  EXPECT_NE(SpaceSpec::Load(t.dir(), name).hash, part_edited);
  // Another template's parts are not this one's.
  fs::create_directories(fs::path(t.dir()) / "t" / "other");
  const std::string now = SpaceSpec::Load(t.dir(), name).hash;
  std::ofstream(fs::path(t.dir()) / "t" / "other" / "x.j2") << "x\n";
  EXPECT_EQ(SpaceSpec::Load(t.dir(), name).hash, now);
}

}  // namespace
}  // namespace beast
