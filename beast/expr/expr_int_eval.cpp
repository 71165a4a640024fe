// Handlers of the int path (expr_int_path.hpp): one function per operation
// and operand modes, instantiated from templates and picked at compile time,
// so evaluation is a chain of direct work with operands in registers.
#include <cstdint>

#include "beast/expr/expr.hpp"
#include "beast/expr/expr_int_path.hpp"
#include "beast/expr/expr_numeric.hpp"

namespace beast::expr {
namespace {

constexpr int64_t kDivisionByZero = static_cast<int64_t>(EvalStatus::kDivisionByZero);
constexpr int64_t kDomainError = static_cast<int64_t>(EvalStatus::kDomainError);

template <Mode M>
inline IntResult Read(const IntContext& ctx, int32_t index, int64_t k) {
  if constexpr (M == Mode::kSlot) {
    const Value& v = ctx.slots[index];
    if (v.kind == Value::Kind::kFloat) return {0, kLeaveIntPath};
    return {v.i, kIntOk};
  } else if constexpr (M == Mode::kConst) {
    return {k, kIntOk};
  } else {
    const IntNode& n = ctx.nodes[index];
    return n.fn(ctx, n);
  }
}

inline IntResult Read(const IntContext& ctx, const IntOperand& o) {
  switch (o.mode) {
    case Mode::kSlot:
      return Read<Mode::kSlot>(ctx, static_cast<int32_t>(o.value), 0);
    case Mode::kConst:
      return {o.value, kIntOk};
    case Mode::kNode:
      break;
  }
  return Read<Mode::kNode>(ctx, static_cast<int32_t>(o.value), 0);
}

template <Op op>
inline IntResult Apply(int64_t a, int64_t b) {
  int64_t r = 0;
  if constexpr (op == Op::kAdd) {
    if (__builtin_add_overflow(a, b, &r)) return {0, kDomainError};
  } else if constexpr (op == Op::kSub) {
    if (__builtin_sub_overflow(a, b, &r)) return {0, kDomainError};
  } else if constexpr (op == Op::kMul) {
    if (__builtin_mul_overflow(a, b, &r)) return {0, kDomainError};
  } else if constexpr (op == Op::kMod) {
    if (b == 0) return {0, kDivisionByZero};
    r = IntMod(a, b);
  } else if constexpr (op == Op::kFloorDiv) {
    if (b == 0) return {0, kDivisionByZero};
    if (!IntFloorDiv(a, b, &r)) return {0, kDomainError};
  } else if constexpr (op == Op::kCeilDiv) {
    // -(-a // b), failing in the order the general path does.
    if (a == INT64_MIN) return {0, kDomainError};
    if (b == 0) return {0, kDivisionByZero};
    if (!IntFloorDiv(-a, b, &r)) return {0, kDomainError};
    r = -r;  // |r| <= |a| < 2**63
  } else if constexpr (op == Op::kPow) {
    if (b < 0) return {0, kLeaveIntPath};  // the result is a float
    if (!IntPowNonNegative(a, b, &r)) return {0, kDomainError};
  } else if constexpr (op == Op::kLt) {
    r = a < b;
  } else if constexpr (op == Op::kLe) {
    r = a <= b;
  } else if constexpr (op == Op::kGt) {
    r = a > b;
  } else if constexpr (op == Op::kGe) {
    r = a >= b;
  } else if constexpr (op == Op::kEq) {
    r = a == b;
  } else {
    static_assert(op == Op::kNe, "not an int-path binary operation");
    r = a != b;
  }
  return {r, kIntOk};
}

template <Op op>
inline IntResult ApplyUnary(int64_t a) {
  if constexpr (op == Op::kNeg) {
    if (a == INT64_MIN) return {0, kDomainError};
    return {-a, kIntOk};
  } else if constexpr (op == Op::kAbs) {
    if (a == INT64_MIN) return {0, kDomainError};
    return {a < 0 ? -a : a, kIntOk};
  } else if constexpr (op == Op::kNot) {
    return {a == 0, kIntOk};
  } else {
    static_assert(op == Op::kPos, "not an int-path unary operation");
    return {a, kIntOk};
  }
}

template <Op op, Mode A>
IntResult Unary(const IntContext& ctx, const IntNode& self) {
  IntResult x = Read<A>(ctx, self.a, self.k);
  if (x.status != kIntOk) return x;
  return ApplyUnary<op>(x.value);
}

template <Op op, Mode A, Mode B>
IntResult Binary(const IntContext& ctx, const IntNode& self) {
  IntResult x = Read<A>(ctx, self.a, self.k);
  if (x.status != kIntOk) return x;
  IntResult y = Read<B>(ctx, self.b, self.k);
  if (y.status != kIntOk) return y;
  return Apply<op>(x.value, y.value);
}

IntResult Compare(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::kLt:
      return {a < b, kIntOk};
    case Op::kLe:
      return {a <= b, kIntOk};
    case Op::kGt:
      return {a > b, kIntOk};
    case Op::kGe:
      return {a >= b, kIntOk};
    case Op::kEq:
      return {a == b, kIntOk};
    default:
      return {a != b, kIntOk};
  }
}

// a and b and c / a or b or c: the first operand that decides, else the last.
template <bool kIsAnd>
IntResult ShortCircuit(const IntContext& ctx, const IntNode& self) {
  const IntOperand* o = ctx.operands + self.first;
  IntResult x{0, kIntOk};
  for (int32_t k = 0; k < self.count; ++k) {
    x = Read(ctx, o[k]);
    if (x.status != kIntOk || (x.value != 0) != kIsAnd) return x;
  }
  return x;
}

// The common `cmp and cmp` (or `or`): two operands, both computed by nodes.
template <bool kIsAnd>
IntResult ShortCircuitNodes(const IntContext& ctx, const IntNode& self) {
  IntResult x = Read<Mode::kNode>(ctx, self.a, 0);
  if (x.status != kIntOk || (x.value != 0) != kIsAnd) return x;
  return Read<Mode::kNode>(ctx, self.b, 0);
}

IntResult IfElse(const IntContext& ctx, const IntNode& self) {
  const IntOperand* o = ctx.operands + self.first;
  IntResult c = Read(ctx, o[1]);
  if (c.status != kIntOk) return c;
  return Read(ctx, o[c.value != 0 ? 0 : 2]);
}

// a < b <= c: each operand read once, stopping at the first False.
IntResult Chain(const IntContext& ctx, const IntNode& self) {
  const IntOperand* o = ctx.operands + self.first;
  IntResult left = Read(ctx, o[0]);
  if (left.status != kIntOk) return left;
  for (int32_t k = 1; k < self.count; ++k) {
    IntResult right = Read(ctx, o[k]);
    if (right.status != kIntOk) return right;
    if (!Compare(o[k].op, left.value, right.value).value) return {0, kIntOk};
    left = right;
  }
  return {1, kIntOk};
}

// Every operand is read before comparing, as Python builds the list first.
template <bool kIsMax>
IntResult MinMax(const IntContext& ctx, const IntNode& self) {
  const IntOperand* o = ctx.operands + self.first;
  IntResult best = Read(ctx, o[0]);
  for (int32_t k = 1; k < self.count && best.status == kIntOk; ++k) {
    IntResult v = Read(ctx, o[k]);
    if (v.status != kIntOk) return v;
    if (kIsMax ? v.value > best.value : v.value < best.value) best = v;
  }
  return best;
}

template <bool kIsIn>
IntResult InList(const IntContext& ctx, const IntNode& self) {
  const IntOperand* o = ctx.operands + self.first;
  IntResult x = Read(ctx, o[0]);
  if (x.status != kIntOk) return x;
  bool found = false;
  for (int32_t k = 1; k < self.count; ++k) {
    IntResult v = Read(ctx, o[k]);
    if (v.status != kIntOk) return v;
    found = found || v.value == x.value;
  }
  return {found == kIsIn, kIntOk};
}

template <Op op>
IntFn UnaryFor(Mode a) {
  switch (a) {
    case Mode::kSlot:
      return &Unary<op, Mode::kSlot>;
    case Mode::kConst:
      return &Unary<op, Mode::kConst>;
    case Mode::kNode:
      break;
  }
  return &Unary<op, Mode::kNode>;
}

template <Op op, Mode A>
IntFn BinaryFor(Mode b) {
  switch (b) {
    case Mode::kSlot:
      return &Binary<op, A, Mode::kSlot>;
    case Mode::kConst:
      return &Binary<op, A, Mode::kConst>;
    case Mode::kNode:
      break;
  }
  return &Binary<op, A, Mode::kNode>;
}

template <Op op>
IntFn BinaryFor(Mode a, Mode b) {
  switch (a) {
    case Mode::kSlot:
      return BinaryFor<op, Mode::kSlot>(b);
    case Mode::kConst:
      return BinaryFor<op, Mode::kConst>(b);
    case Mode::kNode:
      break;
  }
  return BinaryFor<op, Mode::kNode>(b);
}

}  // namespace

IntFn UnaryFn(Op op, Mode a) {
  switch (op) {
    case Op::kNeg:
      return UnaryFor<Op::kNeg>(a);
    case Op::kAbs:
      return UnaryFor<Op::kAbs>(a);
    case Op::kNot:
      return UnaryFor<Op::kNot>(a);
    case Op::kPos:
    case Op::kToInt:
      return UnaryFor<Op::kPos>(a);
    default:
      return nullptr;
  }
}

IntFn BinaryFn(Op op, Mode a, Mode b) {
  switch (op) {
#define BEAST_INT_BINARY(OP) \
  case Op::OP:               \
    return BinaryFor<Op::OP>(a, b);
    BEAST_INT_BINARY(kAdd)
    BEAST_INT_BINARY(kSub)
    BEAST_INT_BINARY(kMul)
    BEAST_INT_BINARY(kFloorDiv)
    BEAST_INT_BINARY(kMod)
    BEAST_INT_BINARY(kPow)
    BEAST_INT_BINARY(kCeilDiv)
    BEAST_INT_BINARY(kLt)
    BEAST_INT_BINARY(kLe)
    BEAST_INT_BINARY(kGt)
    BEAST_INT_BINARY(kGe)
    BEAST_INT_BINARY(kEq)
    BEAST_INT_BINARY(kNe)
#undef BEAST_INT_BINARY
    default:
      return nullptr;
  }
}

IntFn ShortCircuitNodesFn(bool is_and) {
  return is_and ? &ShortCircuitNodes<true> : &ShortCircuitNodes<false>;
}

IntFn NaryFn(Nary kind) {
  switch (kind) {
    case Nary::kAnd:
      return &ShortCircuit<true>;
    case Nary::kOr:
      return &ShortCircuit<false>;
    case Nary::kIfElse:
      return &IfElse;
    case Nary::kChain:
      return &Chain;
    case Nary::kMin:
      return &MinMax<false>;
    case Nary::kMax:
      return &MinMax<true>;
    case Nary::kIn:
      return &InList<true>;
    case Nary::kNotIn:
      break;
  }
  return &InList<false>;
}

}  // namespace beast::expr
