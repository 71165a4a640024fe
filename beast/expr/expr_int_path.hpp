// The int path of a compiled expression: what enumeration runs, since space
// parameters are ints. A flat array of nodes, each with a handler specialized
// for its operation and for where its operands come from (a slot, a
// constant, another node), so `X % Y == 0` is two direct calls doing int64
// arithmetic with no dispatch loop, no frame and no kind checks beyond one
// per slot read. Bool is an int here (True + 1 == 2, comparisons and truth
// tests agree on 0/1); the kind of the result is fixed at compile time.
#pragma once

#include <cstdint>

#include "beast/core/value.hpp"
#include "beast/expr/expr_op.hpp"

namespace beast::expr {

enum class Mode : uint8_t { kSlot, kConst, kNode };

// A handler's status: EvalStatus's values, or kLeaveIntPath when a value
// does not fit the int path (a float slot, a negative power), so the caller
// runs the general program instead.
constexpr int64_t kIntOk = 0;
constexpr int64_t kLeaveIntPath = 3;

struct IntResult {
  int64_t value;
  int64_t status;
};

// An operand of an n-ary node: a slot index, a constant or a node index.
struct IntOperand {
  Mode mode;
  Op op;  // kChain: the comparison between the previous operand and this one
  int64_t value;
};

struct IntNode;

struct IntContext {
  const IntNode* nodes;
  const IntOperand* operands;
  const Value* slots;
};

using IntFn = IntResult (*)(const IntContext& ctx, const IntNode& self);

struct IntNode {
  IntFn fn = nullptr;
  int32_t a = 0;      // first operand: slot or node index (by the handler's mode)
  int32_t b = 0;      // second operand
  int64_t k = 0;      // the constant operand, when one is
  int32_t first = 0;  // n-ary: operands [first, first + count)
  int32_t count = 0;
};

enum class Nary : uint8_t { kAnd, kOr, kIfElse, kChain, kMin, kMax, kIn, kNotIn };

// Handlers. UnaryFn takes kNeg, kPos (also int(), the identity on ints),
// kNot, kAbs; BinaryFn the arithmetic operators but '/' and the comparisons.
IntFn UnaryFn(Op op, Mode a);
IntFn BinaryFn(Op op, Mode a, Mode b);
// a and b / a or b where both operands are nodes, in a and b.
IntFn ShortCircuitNodesFn(bool is_and);
// kIfElse's operands: then, condition, else. kIn/kNotIn: the value, then the
// list. kChain: every operand after the first carries its comparison.
IntFn NaryFn(Nary kind);

}  // namespace beast::expr
