// Loads and checks a template's .space.yaml into a SpaceSpec. Every problem
// found is reported as one line "FILE:LINE: what is wrong".
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/space/space_yaml.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;

// Names a post-compile constraint may read: resources of the compiled binary.
const std::vector<std::string> kCompiledNames = {"registers", "spills", "stack_bytes",
                                                 "local_mem_used"};

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

// Checks that every name is bound where it is used, and that derived values
// form no cycle. Throws "FILE:LINE: ..." naming the first offending name.
void CheckNames(const SpaceSpec& spec) {
  auto fail = [](const SourceLocation& at, const std::string& why) {
    throw Error(ErrorCode::kBadInput, at.ToString() + ": " + why);
  };
  std::set<std::string> fixed;
  for (const auto& n : ProblemVariableNames(spec.op)) fixed.insert(n);
  for (const auto& n : DeviceVariableNames()) fixed.insert(n);
  std::map<std::string, int> param_index, derived_index;
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const auto& p = spec.params[i];
    if (fixed.count(p.name))
      fail(p.where, "parameter " + p.name + " shadows a problem or device name");
    if (!param_index.emplace(p.name, static_cast<int>(i)).second) {
      fail(p.where, "parameter " + p.name + " is declared twice");
    }
  }
  for (size_t i = 0; i < spec.derived.size(); ++i) {
    const auto& d = spec.derived[i];
    if (fixed.count(d.name) || param_index.count(d.name) ||
        !derived_index.emplace(d.name, static_cast<int>(i)).second) {
      fail(d.where, "derived value " + d.name + " reuses a name already bound");
    }
  }
  // level(derived) = the last parameter it needs, through other derived values.
  std::vector<int> level(spec.derived.size(), -2);  // -2 unvisited, -3 visiting
  std::function<int(size_t, std::vector<std::string>&)> resolve =
      [&](size_t d, std::vector<std::string>& path) -> int {
    if (level[d] == -3) {
      std::string cycle;
      for (const auto& n : path) cycle += n + " -> ";
      fail(spec.derived[d].where, "derived values form a cycle: " + cycle + spec.derived[d].name);
    }
    if (level[d] != -2) return level[d];
    level[d] = -3;
    path.push_back(spec.derived[d].name);
    int lv = -1;
    for (const auto& n : spec.derived[d].expr.Names()) {
      if (fixed.count(n)) continue;
      if (param_index.count(n))
        lv = std::max(lv, param_index[n]);
      else if (derived_index.count(n))
        lv = std::max(lv, resolve(derived_index[n], path));
      else
        fail(spec.derived[d].where,
             "derived value " + spec.derived[d].name + " names unknown parameter \"" + n + "\"");
    }
    path.pop_back();
    return level[d] = lv;
  };
  for (size_t d = 0; d < spec.derived.size(); ++d) {
    std::vector<std::string> path;
    resolve(d, path);
  }
  auto bound_before = [&](const std::string& n, int index) {
    if (fixed.count(n)) return true;
    if (param_index.count(n)) return param_index.at(n) < index;
    if (derived_index.count(n)) return level[derived_index.at(n)] < index;
    return false;
  };
  auto known = [&](const std::string& n) {
    return fixed.count(n) || param_index.count(n) || derived_index.count(n);
  };
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const auto& p = spec.params[i];
    for (const auto& e : p.exprs) {
      for (const auto& n : e.Names()) {
        if (!known(n))
          fail(p.where, "value set of " + p.name + " names unknown parameter \"" + n + "\"");
        if (!bound_before(n, static_cast<int>(i))) {
          fail(p.where, "value set of " + p.name + " uses " + n +
                            " before it is bound (declare it earlier)");
        }
      }
    }
    if (p.has_default) {
      for (const auto& n : p.default_value.Names()) {
        if (!fixed.count(n))
          fail(p.where, "default of " + p.name + " may read only problem and device names, not \"" +
                            n + "\"");
      }
    }
  }
  for (const auto& c : spec.constraints) {
    for (const auto& n : c.expr.Names()) {
      bool compiled =
          std::find(kCompiledNames.begin(), kCompiledNames.end(), n) != kCompiledNames.end();
      if (compiled && c.stage == ConstraintStage::kAfterCompile) continue;
      if (!known(n)) {
        fail(c.where, "constraint \"" + c.expr.text() + "\" names unknown parameter \"" + n + "\"" +
                          (compiled ? " (compiled resources need stage: after_compile)" : ""));
      }
    }
  }
  std::vector<const Expr*> launch_exprs;
  for (int d = 0; d < 3; ++d) {
    launch_exprs.push_back(&spec.launch_global[d]);
    launch_exprs.push_back(&spec.launch_local[d]);
  }
  if (spec.has_dynamic_local) launch_exprs.push_back(&spec.launch_dynamic_local_bytes);
  if (spec.has_shared_carveout) launch_exprs.push_back(&spec.launch_shared_carveout);
  for (const Expr* e : launch_exprs) {
    for (const auto& n : e->Names()) {
      if (!known(n))
        fail({spec.space_path, 0},
             "launch expression \"" + e->text() + "\" names unknown parameter \"" + n + "\"");
    }
  }
}

}  // namespace

std::vector<std::string> ProblemVariableNames(OpKind op) {
  if (op == OpKind::kGemm) return {"M", "N", "K", "trans_a", "trans_b"};
  return {"N", "C",        "H",        "W",     "K",     "R",          "S",          "P",
          "Q", "stride_h", "stride_w", "pad_h", "pad_w", "dilation_h", "dilation_w", "groups"};
}

std::vector<std::string> CompiledResourceNames() { return kCompiledNames; }

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
          "device_is_cuda"};
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
  std::string space_text = ReadFile(spec.space_path);
  YamlReader L(spec.space_path);
  YAML::Node root;
  try {
    root = YAML::Load(space_text);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kBadInput,
                spec.space_path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  L.CheckKeys(root,
              {"op", "source", "kernel", "layouts", "description", "parameters", "derived",
               "constraints", "launch"},
              "the space description");
  std::string op = L.Scalar(L.Required(root, "op", "the space description"), "op");
  if (op == "conv2d")
    spec.op = OpKind::kConv2d;
  else if (op == "gemm")
    spec.op = OpKind::kGemm;
  else
    L.Fail(root["op"], "op must be conv2d or gemm, not \"" + op + "\"");
  spec.kernel_name = L.Scalar(L.Required(root, "kernel", "the space description"), "kernel");
  std::string source = L.Scalar(L.Required(root, "source", "the space description"), "source");
  fs::path source_path = fs::path(spec.space_path).parent_path() / source;
  if (!fs::is_regular_file(source_path))
    L.Fail(root["source"], "template source " + source_path.string() + " does not exist");
  spec.source_path = source_path.string();
  spec.source_rel = fs::relative(source_path, templates_dir).string();
  if (root["description"].IsDefined())
    spec.description = L.Scalar(root["description"], "description");
  if (root["layouts"].IsDefined()) {
    for (const auto& item : root["layouts"]) {
      std::string layout = L.Scalar(item, "layout");
      if (layout == "NCHW")
        spec.layouts.push_back(Layout::kNCHW);
      else if (layout == "NHWC")
        spec.layouts.push_back(Layout::kNHWC);
      else
        L.Fail(item, "layout must be NCHW or NHWC, not \"" + layout + "\"");
    }
  } else if (spec.op == OpKind::kConv2d) {
    L.Fail(root, "a conv2d space must list its layouts");
  }
  YAML::Node params = L.Required(root, "parameters", "the space description");
  if (!params.IsSequence() || params.size() == 0)
    L.Fail(params, "parameters must be a non-empty list");
  for (const auto& p : params) spec.params.push_back(LoadParam(L, p));
  if (root["derived"].IsDefined()) {
    for (const auto& d : root["derived"]) {
      L.CheckKeys(d, {"name", "expr", "description"}, "a derived value");
      spec.derived.push_back(
          {L.Scalar(L.Required(d, "name", "a derived value"), "name"),
           ParseExprAt(L, L.Required(d, "expr", "a derived value"), "derived value"), L.Where(d)});
    }
  }
  if (root["constraints"].IsDefined()) {
    for (const auto& c : root["constraints"]) spec.constraints.push_back(ReadConstraint(L, c));
  }
  YAML::Node launch = L.Required(root, "launch", "the space description");
  L.CheckKeys(launch, {"global", "local", "dynamic_local_bytes", "shared_carveout"}, "launch");
  for (const char* key : {"global", "local"}) {
    YAML::Node dims = L.Required(launch, key, "launch");
    if (!dims.IsSequence() || dims.size() < 1 || dims.size() > 3)
      L.Fail(dims, std::string("launch ") + key + " must list 1 to 3 sizes");
    Expr* target = std::string(key) == "global" ? spec.launch_global : spec.launch_local;
    for (size_t d = 0; d < 3; ++d) {
      target[d] =
          d < dims.size() ? ParseExprAt(L, dims[d], std::string("launch ") + key) : Expr::Parse("1");
    }
  }
  if (launch["dynamic_local_bytes"].IsDefined()) {
    spec.has_dynamic_local = true;
    spec.launch_dynamic_local_bytes =
        ParseExprAt(L, launch["dynamic_local_bytes"], "launch dynamic_local_bytes");
  }
  if (launch["shared_carveout"].IsDefined()) {
    spec.has_shared_carveout = true;
    spec.launch_shared_carveout = ParseExprAt(L, launch["shared_carveout"], "launch shared_carveout");
  }
  CheckNames(spec);
  // The hash covers what decides the generated code: space, template, the
  // template's own parts (a folder beside it named after it: implicit_gemm/
  // for implicit_gemm.cl.j2) and the shared macros.
  std::string hashed = space_text + '\0' + ReadFile(spec.source_path);
  const fs::path template_file(spec.source_path);
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
  spec.hash = HashText(hashed);
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
