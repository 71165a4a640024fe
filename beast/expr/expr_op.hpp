// The operations of the expression language, shared by the parse tree and the
// compiled program (where each is one instruction).
#pragma once

#include <cstdint>

namespace beast::expr {

enum class Op : uint8_t {
  // dst = a OP b
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kCeilDiv,
  kLt,
  kLe,
  kGt,
  kGe,
  kEq,
  kNe,
  // dst = OP a
  kNeg,
  kPos,
  kNot,
  kAbs,
  kToInt,
  kToFloat,
  kMove,
  // Over an operand list in the program's aux table: dst = min/max(list),
  // dst = a in/not in list.
  kMin,
  kMax,
  kIn,
  kNotIn,
  // Control: jump to b (when a is falsy / truthy).
  kJump,
  kJumpIfFalse,
  kJumpIfTrue,
};

}  // namespace beast::expr
