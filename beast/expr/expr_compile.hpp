// Lowers a parse tree into a flat program (expr_program.hpp): names become
// slot reads, constant subtrees are folded, and/or/if become jumps.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "beast/expr/expr_node.hpp"
#include "beast/expr/expr_program.hpp"

namespace beast::expr {

// Compiles the general program and, when the expression qualifies, the int
// path. slot_of must know every name of the tree (Expr::Compile checks).
// Throws Error(kBadInput) when the program would need more than kMaxFrame
// registers.
CompiledExpr::Program CompileProgram(const Expr::Node& root, std::string_view text,
                                     const std::function<int(const std::string&)>& slot_of);

// The value of a name-free subtree, or nothing when it has names or its
// evaluation fails (1 / 0 stays in the program, to fail only if reached).
std::optional<Value> FoldConstant(const Expr::Node& node, std::string_view text);

}  // namespace beast::expr
