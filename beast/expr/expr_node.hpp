// The parsed form of an expression: an immutable tree that Expr shares
// between copies and that the compiler lowers into a flat program.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "beast/core/value.hpp"
#include "beast/expr/expr.hpp"
#include "beast/expr/expr_op.hpp"

namespace beast {

struct Expr::Node {
  enum class Kind : unsigned char {
    kConst,    // value
    kName,     // name
    kUnary,    // op (kNeg, kPos, kNot), children[0]
    kBinary,   // op (arithmetic), children[0] op children[1]
    kCall,     // name = function, op = its operation, children = arguments
    kAnd,      // children[0] and children[1] and ...
    kOr,       // children[0] or children[1] or ...
    kCompare,  // children[0] ops[0] children[1] ops[1] ... (a chain)
    kIfElse,   // children[0] if children[1] else children[2]
    kList,     // [children...] or (children...): only right of in / not in
  };

  Kind kind = Kind::kConst;
  size_t offset = 0;  // where the node starts in the text, for messages
  Value value;
  std::string name;
  expr::Op op = expr::Op::kMove;
  std::vector<expr::Op> ops;  // kCompare
  std::vector<std::shared_ptr<const Node>> children;
  bool constant = true;  // no name anywhere below
  int height = 1;        // nodes on the longest path down, this one included
};

}  // namespace beast
