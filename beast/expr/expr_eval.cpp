// The evaluator. CompiledExpr::Eval runs the int path when the program has
// one and the slots allow it (expr_int_eval.cpp), else the general program
// over a stack frame, where int op int is still inlined and only floats,
// overflow and errors take the out-of-line paths of expr_numeric.
#include <cstring>
#include <memory>

#include "beast/core/error.hpp"
#include "beast/expr/expr_numeric.hpp"
#include "beast/expr/expr_program.hpp"

namespace beast {
namespace expr {
namespace {

// Copies field by field. Slots are often written just before Eval, and
// Value::Int stores the kind byte and the payload separately; a 16-byte
// struct copy would then read across two stores, which CPUs cannot forward,
// and stall for longer than the whole evaluation takes.
inline void Copy(Value* dst, const Value& src) {
  dst->kind = src.kind;
  std::memcpy(&dst->i, &src.i, sizeof(dst->i));
}

bool CompareResult(Op op, int c) {
  switch (op) {
    case Op::kLt:
      return c == -1;
    case Op::kLe:
      return c == -1 || c == 0;
    case Op::kGt:
      return c == 1;
    case Op::kGe:
      return c == 1 || c == 0;
    case Op::kEq:
      return c == 0;
    default:  // kNe: also true when unordered (NaN != NaN)
      return c != 0;
  }
}

}  // namespace

EvalStatus RunProgram(const CompiledExpr::Program& program, const Value* slots, Value* out) {
  // The frame is raw storage: constructing kMaxFrame Values per call would
  // cost more than most programs.
  union Frame {
    Frame() {}
    Value v[kMaxFrame];
  } frame;
  Value* f = frame.v;
  const size_t nslots = program.slots.size();
  const int* load = program.slots.data();
  for (size_t k = 0; k < nslots; ++k) Copy(&f[k], slots[load[k]]);
  const size_t nconsts = program.consts.size();
  const Value* consts = program.consts.data();
  for (size_t k = 0; k < nconsts; ++k) Copy(&f[nslots + k], consts[k]);
  const Instr* code = program.code.data();
  const int32_t* aux = program.aux.data();
  const int32_t n = static_cast<int32_t>(program.code.size());
  EvalStatus s;
  for (int32_t pc = 0; pc < n;) {
    const Instr& in = code[pc++];
    switch (in.op) {
#define BEAST_EXPR_OVERFLOW_OP(OP, BUILTIN, SLOW)                 \
  case Op::OP: {                                                  \
    const Value& x = f[in.a];                                     \
    const Value& y = f[in.b];                                     \
    int64_t r;                                                    \
    if (BothInts(x, y) && !BUILTIN(x.i, y.i, &r)) {               \
      f[in.dst] = Value::Int(r);                                  \
    } else if ((s = SLOW(x, y, &f[in.dst])) != EvalStatus::kOk) { \
      return s;                                                   \
    }                                                             \
    break;                                                        \
  }
      BEAST_EXPR_OVERFLOW_OP(kAdd, __builtin_add_overflow, Add)
      BEAST_EXPR_OVERFLOW_OP(kSub, __builtin_sub_overflow, Sub)
      BEAST_EXPR_OVERFLOW_OP(kMul, __builtin_mul_overflow, Mul)
#undef BEAST_EXPR_OVERFLOW_OP
      case Op::kMod: {
        const Value& x = f[in.a];
        const Value& y = f[in.b];
        if (BothInts(x, y) && y.i != 0) {
          f[in.dst] = Value::Int(IntMod(x.i, y.i));
        } else if ((s = Mod(x, y, &f[in.dst])) != EvalStatus::kOk) {
          return s;
        }
        break;
      }
      case Op::kFloorDiv: {
        const Value& x = f[in.a];
        const Value& y = f[in.b];
        int64_t q;
        if (BothInts(x, y) && y.i != 0 && IntFloorDiv(x.i, y.i, &q)) {
          f[in.dst] = Value::Int(q);
        } else if ((s = FloorDiv(x, y, &f[in.dst])) != EvalStatus::kOk) {
          return s;
        }
        break;
      }
#define BEAST_EXPR_SLOW_BINARY(OP, FN)                               \
  case Op::OP:                                                       \
    if ((s = FN(f[in.a], f[in.b], &f[in.dst])) != EvalStatus::kOk) { \
      return s;                                                      \
    }                                                                \
    break;
        BEAST_EXPR_SLOW_BINARY(kDiv, TrueDiv)
        BEAST_EXPR_SLOW_BINARY(kPow, Pow)
        BEAST_EXPR_SLOW_BINARY(kCeilDiv, CeilDiv)
#undef BEAST_EXPR_SLOW_BINARY
#define BEAST_EXPR_COMPARE(OP, CMP)                                                               \
  case Op::OP: {                                                                                  \
    const Value& x = f[in.a];                                                                     \
    const Value& y = f[in.b];                                                                     \
    f[in.dst] = Value::Bool(BothInts(x, y) ? x.i CMP y.i : CompareResult(Op::OP, Compare(x, y))); \
    break;                                                                                        \
  }
        BEAST_EXPR_COMPARE(kLt, <)
        BEAST_EXPR_COMPARE(kLe, <=)
        BEAST_EXPR_COMPARE(kGt, >)
        BEAST_EXPR_COMPARE(kGe, >=)
        BEAST_EXPR_COMPARE(kEq, ==)
        BEAST_EXPR_COMPARE(kNe, !=)
#undef BEAST_EXPR_COMPARE
#define BEAST_EXPR_UNARY(OP, FN)                                    \
  case Op::OP:                                                      \
    if ((s = FN(f[in.a], &f[in.dst])) != EvalStatus::kOk) return s; \
    break;
        BEAST_EXPR_UNARY(kNeg, Neg)
        BEAST_EXPR_UNARY(kPos, Pos)
        BEAST_EXPR_UNARY(kAbs, Abs)
        BEAST_EXPR_UNARY(kToInt, ToInt)
        BEAST_EXPR_UNARY(kToFloat, ToFloat)
#undef BEAST_EXPR_UNARY
      case Op::kNot:
        f[in.dst] = Value::Bool(!f[in.a].Truthy());
        break;
      case Op::kMove:
        Copy(&f[in.dst], f[in.a]);
        break;
      case Op::kMin:
      case Op::kMax: {
        // Python keeps the first extreme: max(1, 1.0) is 1.
        const int32_t* list = aux + in.b;
        int want = in.op == Op::kMax ? 1 : -1;
        const Value* best = &f[list[1]];
        for (int32_t k = 2; k <= list[0]; ++k) {
          const Value& v = f[list[k]];
          int c = BothInts(v, *best) ? (v.i > best->i) - (v.i < best->i) : Compare(v, *best);
          if (c == want) best = &v;
        }
        Copy(&f[in.dst], *best);
        break;
      }
      case Op::kIn:
      case Op::kNotIn: {
        const int32_t* list = aux + in.b;
        const Value& x = f[in.a];
        bool found = false;
        for (int32_t k = 1; k <= list[0] && !found; ++k) {
          const Value& v = f[list[k]];
          found = BothInts(x, v) ? x.i == v.i : Compare(x, v) == 0;
        }
        f[in.dst] = Value::Bool(found == (in.op == Op::kIn));
        break;
      }
      case Op::kJump:
        pc = in.b;
        break;
      case Op::kJumpIfFalse:
        if (!f[in.a].Truthy()) pc = in.b;
        break;
      case Op::kJumpIfTrue:
        if (f[in.a].Truthy()) pc = in.b;
        break;
    }
  }
  Copy(out, f[program.result]);
  return EvalStatus::kOk;
}

}  // namespace expr

namespace {

// The int path of a program whose result may be a slot's value knows that
// value's kind only when every slot holds an int (not a bool).
bool AllIntSlots(const CompiledExpr::Program& p, const Value* slots) {
  for (int s : p.slots) {
    if (slots[s].kind != Value::Kind::kInt) return false;
  }
  return true;
}

}  // namespace

CompiledExpr::CompiledExpr() = default;
CompiledExpr::~CompiledExpr() = default;
CompiledExpr::CompiledExpr(const CompiledExpr& other)
    : program_(other.program_ ? std::make_unique<Program>(*other.program_) : nullptr) {}
CompiledExpr& CompiledExpr::operator=(const CompiledExpr& other) {
  if (this != &other) {
    program_ = other.program_ ? std::make_unique<Program>(*other.program_) : nullptr;
  }
  return *this;
}
CompiledExpr::CompiledExpr(CompiledExpr&&) noexcept = default;
CompiledExpr& CompiledExpr::operator=(CompiledExpr&&) noexcept = default;

EvalStatus CompiledExpr::Eval(const Value* slots, Value* out) const {
  const Program* p = program_.get();
  BEAST_CHECK(p != nullptr);
  if (p->int_root >= 0 && (!p->int_needs_int_slots || AllIntSlots(*p, slots))) {
    expr::IntContext ctx{p->int_nodes.data(), p->int_operands.data(), slots};
    const expr::IntNode& root = p->int_nodes[p->int_root];
    expr::IntResult r = root.fn(ctx, root);
    if (r.status == expr::kIntOk) {
      out->kind = p->int_result_kind;
      out->i = r.value;
      return EvalStatus::kOk;
    }
    if (r.status != expr::kLeaveIntPath) return static_cast<EvalStatus>(r.status);
  }
  return expr::RunProgram(*p, slots, out);
}

const std::vector<int>& CompiledExpr::Slots() const {
  static const std::vector<int> kNone;
  return program_ ? program_->slots : kNone;
}

}  // namespace beast
