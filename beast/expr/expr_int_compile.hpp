// Builds the int path (expr_int_path.hpp) of a compiled expression from its
// parse tree, when the expression qualifies.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "beast/expr/expr_node.hpp"
#include "beast/expr/expr_program.hpp"

namespace beast::expr {

// Fills program's int_* fields, or leaves int_root at -1 when the expression
// can produce a float or the kind of its result depends on more than the
// slots being ints. slot_of must know every name (Compile checked that).
void BuildIntPath(const Expr::Node& root, std::string_view text,
                  const std::function<int(const std::string&)>& slot_of,
                  CompiledExpr::Program* program);

}  // namespace beast::expr
