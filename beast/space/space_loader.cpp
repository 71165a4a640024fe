// Loads and checks a template's .space.yaml into a SpaceSpec. Every problem
// found is reported as one line "FILE:LINE: what is wrong".
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/space/space_names_check.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/space/space_yaml.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, path + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ParamSpec LoadParam(const YamlReader& L, const YAML::Node& node) {
  L.CheckKeys(node, {"name", "values", "range", "pow2", "default", "applied", "description"},
              "a parameter");
  ParamSpec p;
  p.where = L.Where(node);
  p.name = L.Scalar(L.Required(node, "name", "a parameter"), "name");
  int forms = node["values"].IsDefined() + node["range"].IsDefined() + node["pow2"].IsDefined();
  if (forms != 1) L.Fail(node, "parameter " + p.name + " needs exactly one of values, range, pow2");
  YAML::Node list;
  if (node["values"].IsDefined()) {
    p.form = ParamSpec::Form::kValues;
    list = node["values"];
  } else if (node["range"].IsDefined()) {
    p.form = ParamSpec::Form::kRange;
    list = node["range"];
  } else {
    p.form = ParamSpec::Form::kPow2;
    list = node["pow2"];
  }
  if (!list.IsSequence()) L.Fail(list, "parameter " + p.name + ": the value set must be a list");
  for (const auto& item : list) p.exprs.push_back(ParseExprAt(L, item, "parameter " + p.name));
  if (p.exprs.empty()) L.Fail(list, "parameter " + p.name + " has an empty value list");
  if (p.form == ParamSpec::Form::kRange && (p.exprs.size() < 2 || p.exprs.size() > 3)) {
    L.Fail(list, "parameter " + p.name + ": range takes [start, stop] or [start, stop, step]");
  }
  if (p.form == ParamSpec::Form::kPow2 && p.exprs.size() != 2) {
    L.Fail(list, "parameter " + p.name + ": pow2 takes [lo, hi]");
  }
  if (node["default"].IsDefined()) {
    p.has_default = true;
    p.default_value = ParseExprAt(L, node["default"], "default of " + p.name);
  }
  if (node["applied"].IsDefined()) {
    std::string applied = L.Scalar(node["applied"], "applied");
    if (applied != "source" && applied != "launch")
      L.Fail(node["applied"],
             "parameter " + p.name + ": applied must be source or launch, not \"" + applied + "\"");
    p.at_launch = applied == "launch";
  }
  return p;
}

}  // namespace

std::vector<std::string> ProblemVariableNames(OpKind op) {
  // dtype_bytes: the bytes of one element of the problem's dtype (4 for f32,
  // 2 for f16); compute_bytes: of the type kernels compute and stage in local
  // memory (8 for f64, else 4); nhwc: 1 for an NHWC convolution, 0 for NCHW
  // (for a template whose GEMM view depends on the layout); tf32: 1 for a
  // problem with math=tf32 (f32 products may round their inputs to TF32);
  // col_major (GEMM): 1 when the operands are column-major; bias (conv2d): 1
  // when the convolution adds a bias. The names of Problem::Variables().
  if (op == OpKind::kGemm)
    return {"M",   "N", "K", "trans_a", "trans_b", "col_major", "dtype_bytes", "compute_bytes",
            "tf32"};
  return {"N",        "C",     "H",     "W",           "K",
          "R",        "S",     "P",     "Q",           "stride_h",
          "stride_w", "pad_h", "pad_w", "dilation_h",  "dilation_w",
          "groups",   "bias",  "nhwc",  "dtype_bytes", "compute_bytes",
          "tf32"};
}

std::vector<std::string> CompiledResourceNames() {
  return {"registers", "spills", "stack_bytes", "local_mem_used"};
}

std::vector<std::string> RenderedNames() {
  return {"LAYOUT", "KERNEL_NAME", "BACKEND", "DTYPE", "STORAGE"};
}

std::vector<std::string> DeviceVariableNames() {
  return {"device_max_work_group_size",
          "device_max_work_item_size_0",
          "device_max_work_item_size_1",
          "device_max_work_item_size_2",
          "device_local_mem_bytes",
          "device_static_local_mem_bytes",
          "device_compute_units",
          "device_warp_size",
          "device_max_registers_per_thread",
          "device_is_cuda",
          "device_cuda_cc",
          "device_max_groups_1",
          "device_max_groups_2"};
}

std::vector<std::string> SpaceSpec::List(const std::string& templates_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(templates_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); ++it) {
    std::string file = it->path().filename().string();
    const std::string suffix = ".space.yaml";
    if (file.size() > suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::string rel = fs::relative(it->path(), templates_dir).string();
      names.push_back(rel.substr(0, rel.size() - suffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

YAML::Node ParseYaml(const std::string& path, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kBadInput, path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

// A yes-or-no field, `true` or `false`; anything else is a bad input naming
// `what` and its line.
bool ReadFlag(const YamlReader& L, const YAML::Node& node, const std::string& what) {
  const std::string value = L.Scalar(node, what);
  if (value != "true" && value != "false")
    L.Fail(node, what + " must be true or false, not \"" + value + "\"");
  return value == "true";
}

// op, kernel, source, description, layouts, dtypes, backends and tensor_cores.
void ReadHeader(const YamlReader& L, const YAML::Node& root, const std::string& templates_dir,
                SpaceSpec* spec) {
  std::string op = L.Scalar(L.Required(root, "op", "the space description"), "op");
  if (op == "conv2d")
    spec->op = OpKind::kConv2d;
  else if (op == "gemm")
    spec->op = OpKind::kGemm;
  else
    L.Fail(root["op"], "op must be conv2d or gemm, not \"" + op + "\"");
  spec->kernel_name = L.Scalar(L.Required(root, "kernel", "the space description"), "kernel");
  std::string source = L.Scalar(L.Required(root, "source", "the space description"), "source");
  fs::path source_path = fs::path(spec->space_path).parent_path() / source;
  if (!fs::is_regular_file(source_path))
    L.Fail(root["source"], "template source " + source_path.string() + " does not exist");
  spec->source_path = source_path.string();
  spec->source_rel = fs::relative(source_path, templates_dir).string();
  if (root["description"].IsDefined())
    spec->description = L.Scalar(root["description"], "description");
  if (root["layouts"].IsDefined()) {
    for (const auto& item : L.Sequence(root["layouts"], "layouts")) {
      std::string layout = L.Scalar(item, "layout");
      if (layout == "NCHW")
        spec->layouts.push_back(Layout::kNCHW);
      else if (layout == "NHWC")
        spec->layouts.push_back(Layout::kNHWC);
      else
        L.Fail(item, "layout must be NCHW or NHWC, not \"" + layout + "\"");
    }
    if (spec->layouts.empty()) L.Fail(root["layouts"], "layouts lists no layout");
  } else if (spec->op == OpKind::kConv2d) {
    L.Fail(root, "a conv2d space must list its layouts");
  }
  if (root["dtypes"].IsDefined()) {
    spec->dtypes.clear();
    for (const auto& item : L.Sequence(root["dtypes"], "dtypes")) {
      const std::string name = L.Scalar(item, "dtype");
      const std::optional<DType> dtype = ParseDType(name);
      if (!dtype) L.Fail(item, "dtype must be f32, f64, f16 or bf16, not \"" + name + "\"");
      spec->dtypes.push_back(*dtype);
    }
    if (spec->dtypes.empty()) L.Fail(root["dtypes"], "dtypes lists no dtype");
  }
  if (root["backends"].IsDefined()) {
    spec->backends.clear();
    for (const auto& item : L.Sequence(root["backends"], "backends")) {
      const std::string name = L.Scalar(item, "backend");
      if (name == "opencl")
        spec->backends.push_back(Backend::kOpenCL);
      else if (name == "cuda")
        spec->backends.push_back(Backend::kCuda);
      else
        L.Fail(item, "backend must be opencl or cuda, not \"" + name + "\"");
    }
    if (spec->backends.empty()) L.Fail(root["backends"], "backends lists no backend");
  }
  if (root["tensor_cores"].IsDefined())
    spec->tensor_cores = ReadFlag(L, root["tensor_cores"], "tensor_cores");
}

// parameters, derived values and constraints.
void ReadBody(const YamlReader& L, const YAML::Node& root, SpaceSpec* spec) {
  YAML::Node params = L.Required(root, "parameters", "the space description");
  if (!params.IsSequence() || params.size() == 0)
    L.Fail(params, "parameters must be a non-empty list");
  for (const auto& p : params) spec->params.push_back(LoadParam(L, p));
  if (root["derived"].IsDefined()) {
    if (!root["derived"].IsSequence() && !root["derived"].IsNull())  // null: none
      L.Fail(root["derived"], "derived must be a list of {name, expr}");
    for (const auto& d : root["derived"]) {
      L.CheckKeys(d, {"name", "expr", "description"}, "a derived value");
      const std::string name = L.Scalar(L.Required(d, "name", "a derived value"), "name");
      spec->derived.push_back(
          {name, ParseExprAt(L, L.Required(d, "expr", "a derived value"), "derived value " + name),
           L.Where(d)});
    }
  }
  if (root["constraints"].IsDefined()) {
    if (!root["constraints"].IsSequence() && !root["constraints"].IsNull())
      L.Fail(root["constraints"], "constraints must be a list");
    for (const auto& c : root["constraints"]) spec->constraints.push_back(ReadConstraint(L, c));
  }
}

// How the kernel's result is checked beyond the direct sum's bound.
void ReadValidation(const YamlReader& L, const YAML::Node& root, SpaceSpec* spec) {
  if (!root["validation"].IsDefined()) return;
  YAML::Node validation = root["validation"];
  if (!validation.IsMap()) L.Fail(validation, "validation must be a map (winograd_tile: EXPR)");
  spec->validation_where = L.Where(validation);
  L.CheckKeys(validation, {"winograd_tile"}, "validation");
  if (validation["winograd_tile"].IsDefined()) {
    spec->has_winograd_tile = true;
    spec->validation_winograd_tile =
        ParseExprAt(L, validation["winograd_tile"], "validation winograd_tile");
  }
}

// `global:` and `local:` of a launch: 1 to 3 sizes each, the rest 1.
void ReadSizes(const YamlReader& L, const YAML::Node& node, const std::string& what, Expr* global,
               Expr* local) {
  for (const char* key : {"global", "local"}) {
    YAML::Node dims = L.Required(node, key, what);
    if (!dims.IsSequence() || dims.size() < 1 || dims.size() > 3)
      L.Fail(dims, what + " " + key + " must list 1 to 3 sizes");
    Expr* target = std::string(key) == "global" ? global : local;
    for (size_t d = 0; d < 3; ++d)
      target[d] = d < dims.size() ? ParseExprAt(L, dims[d], what + " " + key) : Expr::Parse("1");
  }
}

void ReadLaunch(const YamlReader& L, const YAML::Node& root, SpaceSpec* spec) {
  YAML::Node launch = L.Required(root, "launch", "the space description");
  L.CheckKeys(
      launch,
      {"global", "local", "dynamic_local_bytes", "shared_carveout", "before", "workspace_bytes"},
      "launch");
  spec->launch_where = L.Where(launch);
  ReadSizes(L, launch, "launch", spec->launch_global, spec->launch_local);
  if (launch["before"].IsDefined()) {
    const YAML::Node before = launch["before"];
    if (!before.IsSequence()) L.Fail(before, "launch before must list the kernels launched first");
    for (const YAML::Node& stage : before) {
      if (!stage.IsMap())
        L.Fail(stage, "a launch before entry must be a map (kernel, global, local)");
      L.CheckKeys(stage, {"kernel", "global", "local", "when", "prepare"}, "launch before");
      SpaceSpec::StageSpec s;
      s.where = L.Where(stage);
      const YAML::Node kernel = L.Required(stage, "kernel", "launch before");
      s.kernel = L.Scalar(kernel, "launch before: kernel");
      if (s.kernel.empty() || s.kernel == spec->kernel_name)
        L.Fail(kernel, "launch before: kernel \"" + s.kernel + "\" must name another kernel");
      ReadSizes(L, stage, "launch before " + s.kernel, s.global, s.local);
      s.when = stage["when"].IsDefined()
                   ? ParseExprAt(L, stage["when"], "launch before " + s.kernel + " when")
                   : Expr::Parse("1");
      if (stage["prepare"].IsDefined())
        s.prepare = ReadFlag(L, stage["prepare"], "launch before " + s.kernel + " prepare");
      // Prepare stages run once, before the rest: listed first, so the
      // order in the file is the order of every run.
      if (s.prepare && !spec->stages_before.empty() && !spec->stages_before.back().prepare)
        L.Fail(stage, "launch before " + s.kernel +
                          ": a prepare stage must come before the stages that are not");
      spec->stages_before.push_back(std::move(s));
    }
  }
  if (launch["workspace_bytes"].IsDefined()) {
    spec->has_workspace = true;
    spec->launch_workspace_bytes =
        ParseExprAt(L, launch["workspace_bytes"], "launch workspace_bytes");
  }
  for (const SpaceSpec::StageSpec& s : spec->stages_before)
    if (s.prepare && !spec->has_workspace)
      L.Fail(launch, "launch before " + s.kernel +
                         " is a prepare stage: its result lives in the workspace, so launch needs "
                         "workspace_bytes");
  if (launch["dynamic_local_bytes"].IsDefined()) {
    spec->has_dynamic_local = true;
    spec->launch_dynamic_local_bytes =
        ParseExprAt(L, launch["dynamic_local_bytes"], "launch dynamic_local_bytes");
  }
  if (launch["shared_carveout"].IsDefined()) {
    spec->has_shared_carveout = true;
    spec->launch_shared_carveout =
        ParseExprAt(L, launch["shared_carveout"], "launch shared_carveout");
  }
}

// The hash covers what decides the generated code: space, template, the
// template's own parts (a folder beside it named after it: implicit_gemm/
// for implicit_gemm.cl.j2) and the shared macros.
std::string TemplateHash(const std::string& space_text, const std::string& source_path,
                         const std::string& templates_dir) {
  std::string hashed = space_text + '\0' + ReadFile(source_path);
  const fs::path template_file(source_path);
  const std::string file_name = template_file.filename().string();
  const std::string stem = file_name.substr(0, file_name.find('.'));
  const fs::path folders[] = {template_file.parent_path() / stem,
                              fs::path(templates_dir) / "_common"};
  for (const fs::path& folder : folders) {
    std::vector<std::string> files;
    std::error_code ec;
    for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
         ++it) {
      if (it->is_regular_file()) files.push_back(it->path().string());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) hashed += '\0' + ReadFile(f);
  }
  return HashText(hashed);
}

}  // namespace

SpaceSpec SpaceSpec::Load(const std::string& templates_dir, const std::string& name) {
  SpaceSpec spec;
  spec.name = name;
  spec.space_path = (fs::path(templates_dir) / (name + ".space.yaml")).string();
  if (name.empty() || name.find("..") != std::string::npos ||
      !fs::is_regular_file(spec.space_path)) {
    std::string known;
    for (const auto& n : List(templates_dir)) known += (known.empty() ? "" : " ") + n;
    throw Error(ErrorCode::kNotFound, "unknown template \"" + name + "\" (known: " + known + ")");
  }
  const std::string space_text = ReadFile(spec.space_path);
  const YamlReader L(spec.space_path);
  const YAML::Node root = ParseYaml(spec.space_path, space_text);
  L.CheckKeys(root,
              {"op", "source", "kernel", "layouts", "dtypes", "backends", "tensor_cores",
               "description", "parameters", "derived", "constraints", "launch", "validation"},
              "the space description");
  ReadHeader(L, root, templates_dir, &spec);
  ReadBody(L, root, &spec);
  ReadLaunch(L, root, &spec);
  ReadValidation(L, root, &spec);
  CheckSpaceNames(spec);
  spec.hash = TemplateHash(space_text, spec.source_path, templates_dir);
  return spec;
}

const char* ConstraintKindName(ConstraintKind kind) {
  return kind == ConstraintKind::kHard ? "hard" : "soft";
}

const char* ConstraintClassName(ConstraintClass cls) {
  switch (cls) {
    case ConstraintClass::kHardware:
      return "hardware";
    case ConstraintClass::kCorrectness:
      return "correctness";
    case ConstraintClass::kEfficiency:
      return "efficiency";
    case ConstraintClass::kUser:
      return "user";
  }
  return "?";
}

}  // namespace beast
