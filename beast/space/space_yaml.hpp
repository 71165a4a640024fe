// Reading a space's YAML (space descriptions, constraint sets): the
// expressions and constraints in it, with the file's one-line errors
// (core/yaml_reader.hpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "beast/core/yaml_reader.hpp"
#include "beast/expr/expr.hpp"
#include "beast/space/space_spec.hpp"

namespace beast {

// The expression in `node`; "FILE:LINE: WHAT: why" when it does not parse.
inline Expr ParseExprAt(const YamlReader& reader, const YAML::Node& node, const std::string& what) {
  std::string text = reader.Scalar(node, what);
  try {
    return Expr::Parse(text);
  } catch (const Error& e) {
    reader.Fail(node, what + ": " + e.what());
  }
}

// Reads one constraint: a bare expression (hard, correctness) or a mapping
// with expr, kind, class, stage.
ConstraintSpec ReadConstraint(const YamlReader& reader, const YAML::Node& node);

}  // namespace beast
