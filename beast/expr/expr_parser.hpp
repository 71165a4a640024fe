// Recursive-descent parser of the expression language (Python's grammar and
// precedence for the supported subset; see beast/expr.hpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "beast/expr/expr_node.hpp"

namespace beast::expr {

struct ParsedExpr {
  std::shared_ptr<const Expr::Node> root;
  std::vector<std::string> names;  // free names, in order of first use
};

// Throws Error(kBadInput) 'expression "TEXT": position P: MESSAGE'.
ParsedExpr ParseExpression(std::string_view text);

}  // namespace beast::expr
