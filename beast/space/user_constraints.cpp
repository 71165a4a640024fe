// User constraints from the command line and from constraint-set files, and
// the reading of one constraint shared with space descriptions.
#include "beast/space/user_constraints.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "beast/space/space_yaml.hpp"

namespace beast {

ConstraintSpec ReadConstraint(const YamlReader& L, const YAML::Node& node) {
  ConstraintSpec c;
  c.where = L.Where(node);
  if (node.IsScalar()) {  // shorthand: a bare expression is a hard correctness constraint
    c.expr = ParseExprAt(L, node, "constraint");
    return c;
  }
  L.CheckKeys(node, {"expr", "kind", "class", "stage", "description"}, "a constraint");
  c.expr = ParseExprAt(L, L.Required(node, "expr", "a constraint"), "constraint");
  if (node["kind"].IsDefined()) {
    std::string kind = L.Scalar(node["kind"], "kind");
    if (kind == "hard")
      c.kind = ConstraintKind::kHard;
    else if (kind == "soft")
      c.kind = ConstraintKind::kSoft;
    else
      L.Fail(node["kind"], "constraint kind must be hard or soft, not \"" + kind + "\"");
  }
  if (node["class"].IsDefined()) {
    std::string cls = L.Scalar(node["class"], "class");
    if (cls == "hardware")
      c.cls = ConstraintClass::kHardware;
    else if (cls == "correctness")
      c.cls = ConstraintClass::kCorrectness;
    else if (cls == "efficiency")
      c.cls = ConstraintClass::kEfficiency;
    else if (cls == "user")
      c.cls = ConstraintClass::kUser;
    else
      L.Fail(node["class"], "constraint class must be hardware, correctness, efficiency or user");
  }
  if (node["stage"].IsDefined()) {
    std::string stage = L.Scalar(node["stage"], "stage");
    if (stage == "before_compile")
      c.stage = ConstraintStage::kBeforeCompile;
    else if (stage == "after_compile")
      c.stage = ConstraintStage::kAfterCompile;
    else
      L.Fail(node["stage"], "constraint stage must be before_compile or after_compile");
  }
  return c;
}

ConstraintSpec ParseUserConstraint(const std::string& text) {
  ConstraintSpec c;
  c.kind = ConstraintKind::kSoft;
  c.cls = ConstraintClass::kUser;
  std::string expr = text;
  if (expr.rfind("hard:", 0) == 0) {
    c.kind = ConstraintKind::kHard;
    expr = expr.substr(5);
  } else if (expr.rfind("soft:", 0) == 0) {
    expr = expr.substr(5);
  }
  expr.erase(0, expr.find_first_not_of(" \t"));
  try {
    c.expr = Expr::Parse(expr);
  } catch (const Error& e) {
    throw Error(ErrorCode::kBadArgument, std::string("--constraint: ") + e.what());
  }
  // A command line has no stage field: what reads the binary's resources can
  // only be checked after compiling.
  const std::vector<std::string> compiled = CompiledResourceNames();
  for (const auto& name : c.expr.Names()) {
    if (std::find(compiled.begin(), compiled.end(), name) != compiled.end())
      c.stage = ConstraintStage::kAfterCompile;
  }
  return c;
}

std::vector<ConstraintSpec> LoadConstraintFile(const std::string& path_or_set,
                                               const std::string& constraints_dir) {
  std::string path = path_or_set;
  std::string set = constraints_dir + "/sets/" + path_or_set + ".yaml";
  if (!constraints_dir.empty() && path_or_set.find('/') == std::string::npos &&
      !std::filesystem::exists(path_or_set) && std::filesystem::exists(set)) {
    path = set;
  }
  std::ifstream in(path);
  if (!in) {
    throw Error(ErrorCode::kNotFound,
                path + ": cannot be read (neither a file nor a set in " +
                    (constraints_dir.empty() ? "constraints" : constraints_dir) + "/sets)");
  }
  std::stringstream text;
  text << in.rdbuf();
  YamlReader reader(path);
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kBadInput, path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  YAML::Node list = root.IsMap() ? root["constraints"] : root;
  if (!list.IsSequence())
    reader.Fail(root, "expected a list of constraints (or a mapping with \"constraints:\")");
  std::vector<ConstraintSpec> out;
  for (const auto& node : list) {
    ConstraintSpec c = ReadConstraint(reader, node);
    if (!node.IsMap() || !node["class"].IsDefined()) c.cls = ConstraintClass::kUser;
    if (!node.IsMap() || !node["kind"].IsDefined()) c.kind = ConstraintKind::kSoft;
    out.push_back(c);
  }
  return out;
}

}  // namespace beast
