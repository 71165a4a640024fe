// Compiler from parse tree to register program. Operands are first recorded
// as references into three spaces (slots, constants, temporaries) and only
// mapped to frame indices at the end, once the size of each space is known.
#include "beast/expr/expr_compile.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/expr/expr_int_compile.hpp"

namespace beast::expr {
namespace {

using Node = Expr::Node;
using Program = CompiledExpr::Program;

struct Ref {
  enum class Space : uint8_t { kNone, kSlot, kConst, kTemp };
  Space space = Space::kNone;
  int32_t index = 0;  // within the space; for kNone a jump target or aux offset
};

struct IrInstr {
  Op op;
  Ref dst;
  Ref a;
  Ref b;
};

Ref Raw(int32_t value) { return Ref{Ref::Space::kNone, value}; }

bool IsJump(Op op) { return op == Op::kJump || op == Op::kJumpIfFalse || op == Op::kJumpIfTrue; }

class Compiler {
 public:
  Compiler(std::string_view text, const std::function<int(const std::string&)>& slot_of, bool fold)
      : text_(text), slot_of_(slot_of), fold_(fold) {}

  Program Build(const Node& root) {
    Ref result = Operand(root);
    return Lower(result);
  }

 private:
  Ref Temp() {
    Ref r{Ref::Space::kTemp, temps_++};
    max_temps_ = std::max(max_temps_, temps_);
    return r;
  }

  int Emit(Op op, Ref dst, Ref a, Ref b = Ref()) {
    code_.push_back(IrInstr{op, dst, a, b});
    return static_cast<int>(code_.size()) - 1;
  }

  void PatchToHere(const std::vector<int>& jumps) {
    for (int at : jumps) code_[at].b = Raw(static_cast<int32_t>(code_.size()));
  }

  Ref SlotRef(const std::string& name) {
    for (const auto& [known, ref] : names_) {
      if (known == name) return ref;
    }
    int slot = slot_of_(name);
    BEAST_CHECK(slot >= 0);  // Expr::Compile resolved every name first
    // Two names may share a slot; the frame holds each slot once.
    auto it = std::find(slot_ids_.begin(), slot_ids_.end(), slot);
    Ref ref{Ref::Space::kSlot, static_cast<int32_t>(it - slot_ids_.begin())};
    if (it == slot_ids_.end()) slot_ids_.push_back(slot);
    names_.emplace_back(name, ref);
    return ref;
  }

  Ref ConstRef(const Value& v) {
    for (size_t k = 0; k < consts_.size(); ++k) {
      const Value& c = consts_[k];
      // Same kind and same bits: 0.0 and -0.0, or 1 and True, stay apart.
      if (c.kind == v.kind && c.i == v.i) return Ref{Ref::Space::kConst, static_cast<int32_t>(k)};
    }
    consts_.push_back(v);
    return Ref{Ref::Space::kConst, static_cast<int32_t>(consts_.size()) - 1};
  }

  // The value of a name-free subtree, when computing it succeeds. A subtree
  // that fails (1 / 0) stays in the program so that evaluating it reports
  // the failure, and only if it is reached.
  std::optional<Value> Fold(const Node& node) {
    if (node.kind == Node::Kind::kConst) return node.value;
    if (!fold_) return std::nullopt;
    return FoldConstant(node, text_);
  }

  // Where the node's value will be: its slot, its constant, or a fresh
  // temporary computed into.
  Ref Operand(const Node& node) {
    if (node.kind == Node::Kind::kName) return SlotRef(node.name);
    if (std::optional<Value> v = Fold(node)) return ConstRef(*v);
    Ref t = Temp();
    Into(node, t);
    return t;
  }

  // The first operand of an instruction that writes dst: computed into dst
  // itself, as every handler reads its operands before writing, so a chain
  // like a + b + c + d needs one temporary rather than one per operator.
  Ref FirstOperand(const Node& node, Ref dst) {
    if (node.kind == Node::Kind::kName) return SlotRef(node.name);
    if (std::optional<Value> v = Fold(node)) return ConstRef(*v);
    Into(node, dst);
    return dst;
  }

  // An operand list in aux: count, then the operands.
  Ref OperandList(const std::vector<std::shared_ptr<const Node>>& nodes) {
    std::vector<Ref> refs;
    for (const auto& n : nodes) refs.push_back(Operand(*n));
    Ref at = Raw(static_cast<int32_t>(aux_.size()));
    aux_.push_back(Raw(static_cast<int32_t>(refs.size())));
    aux_.insert(aux_.end(), refs.begin(), refs.end());
    return at;
  }

  void Into(const Node& node, Ref dst) {
    if (node.kind == Node::Kind::kName || node.kind == Node::Kind::kConst) {
      Emit(Op::kMove, dst, Operand(node));
      return;
    }
    if (std::optional<Value> v = Fold(node)) {
      Emit(Op::kMove, dst, ConstRef(*v));
      return;
    }
    int mark = temps_;
    const auto& c = node.children;
    switch (node.kind) {
      case Node::Kind::kUnary:
        Emit(node.op, dst, FirstOperand(*c[0], dst));
        break;
      case Node::Kind::kBinary: {
        Ref a = FirstOperand(*c[0], dst);
        Ref b = Operand(*c[1]);
        Emit(node.op, dst, a, b);
        break;
      }
      case Node::Kind::kCall:
        if (node.op == Op::kMin || node.op == Op::kMax) {
          Emit(node.op, dst, Ref(), OperandList(c));
        } else if (node.op == Op::kCeilDiv) {
          Ref a = FirstOperand(*c[0], dst);
          Ref b = Operand(*c[1]);
          Emit(node.op, dst, a, b);
        } else {
          Emit(node.op, dst, FirstOperand(*c[0], dst));
        }
        break;
      case Node::Kind::kAnd:
      case Node::Kind::kOr:
        ShortCircuit(node, dst);
        break;
      case Node::Kind::kIfElse: {
        if (std::optional<Value> cond = Fold(*c[1])) {
          Into(cond->Truthy() ? *c[0] : *c[2], dst);
          break;
        }
        int to_else = Emit(Op::kJumpIfFalse, Ref(), Operand(*c[1]));
        temps_ = mark;
        Into(*c[0], dst);
        int to_end = Emit(Op::kJump, Ref(), Ref());
        PatchToHere({to_else});
        Into(*c[2], dst);
        PatchToHere({to_end});
        break;
      }
      case Node::Kind::kCompare:
        Chain(node, dst);
        break;
      case Node::Kind::kConst:
      case Node::Kind::kName:
      case Node::Kind::kList:
        BEAST_CHECK(false && "parser lets no list reach a value position");
    }
    temps_ = mark;
  }

  // a and b and c: the first falsy operand, else the last (or: truthy).
  // Constant operands are decided here rather than at run time.
  void ShortCircuit(const Node& node, Ref dst) {
    bool is_and = node.kind == Node::Kind::kAnd;
    std::vector<int> to_end;
    size_t n = node.children.size();
    for (size_t k = 0; k < n; ++k) {
      const Node& child = *node.children[k];
      if (k + 1 < n) {
        if (std::optional<Value> v = Fold(child)) {
          if (v->Truthy() == is_and) continue;  // cannot end the chain
          Emit(Op::kMove, dst, ConstRef(*v));
          break;
        }
      }
      Into(child, dst);
      if (k + 1 < n)
        to_end.push_back(Emit(is_and ? Op::kJumpIfFalse : Op::kJumpIfTrue, Ref(), dst));
    }
    PatchToHere(to_end);
  }

  // a < b <= c: each middle operand computed once, stop at the first False.
  void Chain(const Node& node, Ref dst) {
    std::vector<int> to_end;
    Ref left = Operand(*node.children[0]);
    for (size_t k = 0; k < node.ops.size(); ++k) {
      Op op = node.ops[k];
      const Node& right = *node.children[k + 1];
      if (op == Op::kIn || op == Op::kNotIn) {
        Emit(op, dst, left, OperandList(right.children));
      } else {
        Ref r = Operand(right);
        Emit(op, dst, left, r);
        left = r;
      }
      if (k + 1 < node.ops.size()) to_end.push_back(Emit(Op::kJumpIfFalse, Ref(), dst));
    }
    PatchToHere(to_end);
  }

  Program Lower(Ref result) {
    Program p;
    p.slots = slot_ids_;
    std::sort(p.slots.begin(), p.slots.end());
    int32_t nslots = static_cast<int32_t>(p.slots.size());
    int32_t nconsts = static_cast<int32_t>(consts_.size());
    p.frame_size = nslots + nconsts + max_temps_;
    if (p.frame_size > kMaxFrame) {
      throw Error(ErrorCode::kBadInput, "expression \"" + std::string(text_) +
                                            "\": too large to compile (needs " +
                                            std::to_string(p.frame_size) + " registers, at most " +
                                            std::to_string(kMaxFrame) + ")");
    }
    auto lower = [&](Ref r) -> int32_t {
      switch (r.space) {
        case Ref::Space::kSlot:
          return static_cast<int32_t>(
              std::lower_bound(p.slots.begin(), p.slots.end(), slot_ids_[r.index]) -
              p.slots.begin());
        case Ref::Space::kConst:
          return nslots + r.index;
        case Ref::Space::kTemp:
          return nslots + nconsts + r.index;
        case Ref::Space::kNone:
          break;
      }
      return r.index;
    };
    for (const IrInstr& ir : code_) {
      BEAST_CHECK(!IsJump(ir.op) || ir.b.space == Ref::Space::kNone);
      p.code.push_back(Instr{ir.op, lower(ir.dst), lower(ir.a), lower(ir.b)});
    }
    for (Ref r : aux_) p.aux.push_back(lower(r));
    p.consts = consts_;
    p.result = lower(result);
    return p;
  }

  std::string_view text_;
  const std::function<int(const std::string&)>& slot_of_;
  bool fold_;
  std::vector<IrInstr> code_;
  std::vector<Ref> aux_;
  std::vector<Value> consts_;
  std::vector<int> slot_ids_;  // slot of each kSlot index
  std::vector<std::pair<std::string, Ref>> names_;
  int temps_ = 0;
  int max_temps_ = 0;
};

}  // namespace

std::optional<Value> FoldConstant(const Expr::Node& node, std::string_view text) {
  if (node.kind == Node::Kind::kConst) return node.value;
  if (!node.constant || node.kind == Node::Kind::kList) return std::nullopt;
  // Constant subtrees have no names, so slot_of is never asked.
  const std::function<int(const std::string&)> no_slots = [](const std::string&) { return -1; };
  Program program = Compiler(text, no_slots, /*fold=*/false).Build(node);
  Value v;
  if (RunProgram(program, nullptr, &v) != EvalStatus::kOk) return std::nullopt;
  return v;
}

CompiledExpr::Program CompileProgram(const Expr::Node& root, std::string_view text,
                                     const std::function<int(const std::string&)>& slot_of) {
  Program program = Compiler(text, slot_of, /*fold=*/true).Build(root);
  BuildIntPath(root, text, slot_of, &program);
  return program;
}

}  // namespace beast::expr
