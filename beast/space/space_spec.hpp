// SpaceSpec: a template's search space as declared in its .space.yaml —
// parameters, derived values, constraints (hard/soft, class, stage) and the
// launch geometry — before it is bound to a problem and a device.
#pragma once

#include <string>
#include <vector>

#include "beast/core/backend.hpp"
#include "beast/core/source_location.hpp"
#include "beast/expr/expr.hpp"
#include "beast/problem/problem.hpp"

namespace beast {

struct ParamSpec {
  enum class Form { kValues, kRange, kPow2 };
  std::string name;
  Form form = Form::kValues;
  // kValues: the listed expressions; kRange: start, stop[, step]; kPow2: lo, hi.
  std::vector<Expr> exprs;
  bool has_default = false;
  Expr default_value;
  // Applied at launch (`applied: launch`), not pasted into the source: the
  // renderer never sees it (nor a derived value that reads it), so configs
  // that differ only in such parameters share one program.
  bool at_launch = false;
  SourceLocation where;
};

struct DerivedSpec {
  std::string name;
  Expr expr;
  SourceLocation where;
};

enum class ConstraintKind { kHard, kSoft };
enum class ConstraintClass { kHardware, kCorrectness, kEfficiency, kUser };
enum class ConstraintStage { kBeforeCompile, kAfterCompile };

struct ConstraintSpec {
  Expr expr;
  ConstraintKind kind = ConstraintKind::kHard;
  ConstraintClass cls = ConstraintClass::kCorrectness;
  ConstraintStage stage = ConstraintStage::kBeforeCompile;
  SourceLocation where;
};

const char* ConstraintKindName(ConstraintKind kind);
const char* ConstraintClassName(ConstraintClass cls);

struct SpaceSpec {
  std::string name;  // "gemm/tiled": folder/variant under kernel_templates/
  OpKind op = OpKind::kGemm;
  std::string space_path;   // the .space.yaml file
  std::string source_path;  // the Jinja2 template beside it
  std::string source_rel;   // template path relative to kernel_templates/
  std::string kernel_name;
  std::string description;
  std::vector<Layout> layouts;  // conv2d: layouts the template supports
  // The element types the template renders (`dtypes:`; f32 when absent).
  std::vector<DType> dtypes = {DType::kF32};
  // The backends it renders for (`backends:`; both when absent). A template
  // written for one backend's instructions (CUDA's tensor cores) lists it.
  std::vector<Backend> backends = {Backend::kOpenCL, Backend::kCuda};
  // Whether its arithmetic runs on tensor cores (`tensor_cores: true`): then
  // the measured FMA peaks are not its roof; its %peak is of the tensor
  // cores' measured peak (CUDA), n/a where that is not measured.
  bool tensor_cores = false;
  std::vector<ParamSpec> params;
  std::vector<DerivedSpec> derived;
  std::vector<ConstraintSpec> constraints;
  Expr launch_global[3];
  Expr launch_local[3];
  // Optional launch settings (unset: none). dynamic_local_bytes: local /
  // shared memory sized at launch (OpenCL: one more __local argument after
  // the contract's; CUDA: dynamic shared memory, opted in beyond 48 KiB).
  // shared_carveout: CUDA's preferred shared-memory share of L1 in percent
  // (-1 the driver's choice); OpenCL devices have no such switch.
  Expr launch_dynamic_local_bytes;
  bool has_dynamic_local = false;
  Expr launch_shared_carveout;
  bool has_shared_carveout = false;
  // `launch: before:` kernels launched before the main one, in order, from
  // the same source (a multi-stage config), each when its `when` is nonzero
  // for the config; `launch: workspace_bytes:` the device memory they share
  // (0: none). With a workspace every kernel takes it after the contract's
  // buffers. The harness times the whole sequence as one measurement.
  struct StageSpec {
    std::string kernel;  // the kernel's name in the source
    Expr global[3], local[3];
    Expr when;  // "1" when absent
    // `prepare: true`: the stage reads only the weights (and bias) and
    // writes only the workspace, so its result holds for as long as the
    // weights do: it runs once per weight buffer (the exported library's
    // beast_conv2d_prepare), not in the timed convolution; its own time is
    // kept beside the row's (prepare_ms). Prepare stages come first.
    bool prepare = false;
    SourceLocation where;  // its entry in the file
  };
  std::vector<StageSpec> stages_before;
  Expr launch_workspace_bytes;
  bool has_workspace = false;
  SourceLocation launch_where;      // the `launch:` section
  SourceLocation validation_where;  // the `validation:` section
  // `validation: winograd_tile: EXPR`: the kernel computes Winograd
  // F(m x m, 3 x 3) with m = EXPR of the config, and is validated against
  // that algorithm's error bound (harness/measure/winograd_bound.hpp).
  Expr validation_winograd_tile;
  bool has_winograd_tile = false;
  std::string hash;  // of the space text and the template text

  // Loads and checks kernel_templates/<name>.space.yaml. Every problem is
  // one line: "FILE:LINE: what is wrong". Unknown template -> kNotFound.
  static SpaceSpec Load(const std::string& templates_dir, const std::string& name);
  // Names of every template under templates_dir ("conv2d/direct_nchw", ...).
  static std::vector<std::string> List(const std::string& templates_dir);
};

// Names a space of this op may read besides its own parameters.
std::vector<std::string> ProblemVariableNames(OpKind op);
std::vector<std::string> DeviceVariableNames();
// Resources of the compiled binary that post-compile constraints read:
// registers (per thread), spills (spill bytes), stack_bytes, local_mem_used
// (shared / local memory per group).
std::vector<std::string> CompiledResourceNames();
// The names the renderer sets itself (template_vars.cpp): LAYOUT,
// KERNEL_NAME, BACKEND, DTYPE, STORAGE. No parameter or derived value may
// take one: the renderer's would win, and the template never see it.
std::vector<std::string> RenderedNames();

}  // namespace beast
