// Reads a T1 tuning-problem file into a SpaceSpec (t1_import.hpp).
#include "beast/space/t1_import.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "beast/core/config.hpp"
#include "beast/core/error.hpp"
#include "beast/space/t1_value_list.hpp"

namespace beast {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kBadInput, path + ": not a valid T1 file: " + why);
}

// A JSON boolean (true, false) as the expression language spells it.
std::string PythonLiteral(const std::string& scalar) {
  if (scalar == "true") return "True";
  if (scalar == "false") return "False";
  return scalar;
}

// The values of one parameter as expressions (literal numbers).
std::vector<Expr> ReadValues(const std::string& path, const std::string& name,
                             const YAML::Node& values) {
  std::vector<std::string> items;
  if (values.IsScalar()) {
    try {  // a Python list expression: literal, concatenation, range, comprehension
      for (const Value& v : EvaluateT1ValueList(values.Scalar())) items.push_back(v.ToString());
    } catch (const Error& err) {
      Fail(path, "Values of " + name + ": " + err.what());
    }
  } else if (values.IsSequence()) {
    for (const auto& v : values) items.push_back(PythonLiteral(v.Scalar()));
  } else {
    Fail(path, "Values of " + name + " must be a list");
  }
  if (items.empty()) Fail(path, "parameter " + name + " has an empty value list");
  std::vector<Expr> exprs;
  for (const auto& item : items) {
    Expr e;
    try {
      e = Expr::Parse(item);
    } catch (const Error& err) {
      Fail(path, "a value of " + name + " is not a number: " + err.what());
    }
    if (!e.IsConstant()) Fail(path, "a value of " + name + " is not a number: " + item);
    exprs.push_back(e);
  }
  return exprs;
}

ParamSpec ReadParam(const std::string& path, const YAML::Node& p, size_t index) {
  const std::string where = "TuningParameters[" + std::to_string(index) + "]";
  if (!p.IsMap() || !p["Name"].IsScalar() || !p["Type"].IsScalar() || !p["Values"].IsDefined()) {
    Fail(path, where + " needs Name, Type and Values");
  }
  ParamSpec param;
  param.name = p["Name"].Scalar();
  param.where = {path, p.Mark().line + 1};
  const std::string type = p["Type"].Scalar();
  if (type == "string")
    Fail(path, "parameter " + param.name + " has string values, which beast spaces do not hold");
  if (type != "int" && type != "uint" && type != "float" && type != "bool") {
    Fail(path, "parameter " + param.name + " has Type \"" + type +
                   "\" (expected int, uint, float, bool or string)");
  }
  param.exprs = ReadValues(path, param.name, p["Values"]);
  param.has_default = p["Default"].IsDefined() && p["Default"].IsScalar();
  if (param.has_default) {
    const std::string text = PythonLiteral(p["Default"].Scalar());
    try {
      param.default_value = Expr::Parse(text);
    } catch (const Error& err) {
      Fail(path, "the Default of " + param.name + " is not a number: " + err.what());
    }
    // A Default outside the Values is taken as files of Kernel Tuner's
    // benchmark hub have it (hotspot_milo.json's max_tfactor): the space
    // then has no default point.
    if (!param.default_value.IsConstant())
      Fail(path, "the Default of " + param.name + " is not a number: " + text);
  }
  return param;
}

ConstraintSpec ReadCondition(const std::string& path, const YAML::Node& c, size_t index,
                             const std::set<std::string>& names) {
  const std::string where = "Conditions[" + std::to_string(index) + "]";
  if (!c.IsMap() || !c["Expression"].IsScalar() || !c["Parameters"].IsSequence())
    Fail(path, where + " needs Expression and Parameters");
  ConstraintSpec constraint;
  constraint.where = {path, c.Mark().line + 1};
  try {
    constraint.expr = Expr::Parse(c["Expression"].Scalar());
  } catch (const Error& err) {
    Fail(path, where + ": " + err.what());
  }
  for (const auto& n : constraint.expr.Names()) {
    if (!names.count(n)) {
      Fail(path,
           where + " \"" + constraint.expr.text() + "\" names unknown parameter \"" + n + "\"");
    }
  }
  return constraint;
}

}  // namespace

SpaceSpec LoadT1(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::kNotFound, path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::kBadInput,
                path + ":" + std::to_string(e.mark.line + 1) + ": not valid JSON: " + e.msg);
  }
  if (!root.IsMap()) Fail(path, "the top level must be an object");
  YAML::Node space = root["ConfigurationSpace"];
  if (!space.IsMap()) Fail(path, "ConfigurationSpace (an object) is required");
  YAML::Node params = space["TuningParameters"];
  if (!params.IsSequence())
    Fail(path, "ConfigurationSpace.TuningParameters (an array) is required");
  SpaceSpec spec;
  spec.name = path;
  spec.space_path = path;
  std::set<std::string> names;
  for (size_t i = 0; i < params.size(); ++i) {
    ParamSpec param = ReadParam(path, params[i], i);
    if (!names.insert(param.name).second)
      Fail(path, "parameter " + param.name + " is declared twice");
    spec.params.push_back(std::move(param));
  }
  YAML::Node conditions = space["Conditions"];
  if (conditions.IsDefined()) {
    if (!conditions.IsSequence()) Fail(path, "ConfigurationSpace.Conditions must be an array");
    for (size_t i = 0; i < conditions.size(); ++i)
      spec.constraints.push_back(ReadCondition(path, conditions[i], i, names));
  }
  for (int d = 0; d < 3; ++d) spec.launch_global[d] = spec.launch_local[d] = Expr::Parse("1");
  spec.hash = HashText(text.str());
  return spec;
}

}  // namespace beast
