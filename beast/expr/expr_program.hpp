// The compiled form of an expression. The general program is a flat register
// program over one frame of Values, right for every kind of input: frame
// layout is the slots it reads (copied in, ascending slot order), then the
// constants, then temporaries; each instruction names frame indices, so
// evaluation is a loop over a switch with no allocation. Beside it, for the
// common all-int case, the int path (expr_int_path.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "beast/core/value.hpp"
#include "beast/expr/expr.hpp"
#include "beast/expr/expr_int_path.hpp"
#include "beast/expr/expr_op.hpp"

namespace beast {

namespace expr {

// Registers per program; the frame lives on the evaluator's stack (16 KiB,
// never initialized as a whole). Enough for a list of a thousand values.
constexpr int kMaxFrame = 1024;

// dst = a OP b for arithmetic and comparisons; dst = OP a for unary ops;
// kMin/kMax/kIn/kNotIn read the operand list aux[b] (count, then frame
// indices); jumps go to instruction b (kJumpIfFalse/True test frame[a]).
struct Instr {
  Op op;
  int32_t dst;
  int32_t a;
  int32_t b;
};

}  // namespace expr

struct CompiledExpr::Program {
  std::vector<expr::Instr> code;
  std::vector<int32_t> aux;
  std::vector<int> slots;     // ascending; frame[k] holds slot slots[k]
  std::vector<Value> consts;  // frame[slots.size() + k] holds consts[k]
  int frame_size = 0;
  int result = 0;  // frame index of the value once the code has run

  // The int path (expr_int_path.hpp): a tree of specialized nodes that
  // computes the same value with int64 arithmetic and no kind checks, used
  // when every slot it reads holds an int or a bool. int_root is -1 when the
  // expression can produce a float (float constant, '/', float()) or the kind
  // of its result is not known before running it.
  std::vector<expr::IntNode> int_nodes;
  std::vector<expr::IntOperand> int_operands;
  int int_root = -1;
  bool int_needs_int_slots = false;  // the result may be a slot's own value
  Value::Kind int_result_kind = Value::Kind::kInt;
};

namespace expr {

// Runs a program over Values; the body of CompiledExpr::Eval for any input,
// also used to fold constants.
EvalStatus RunProgram(const CompiledExpr::Program& program, const Value* slots, Value* out);

}  // namespace expr
}  // namespace beast
