// Builder of the int path: walks the parse tree, folds constant subtrees
// (through the general compiler, so both paths agree on every constant), and
// picks for each node the handler specialized for its operand modes.
#include "beast/expr/expr_int_compile.hpp"

#include <optional>
#include <utility>
#include <vector>

#include "beast/expr/expr_compile.hpp"

namespace beast::expr {
namespace {

using Node = Expr::Node;

// The kind of a node's value on the int path. via_slot: the value may be a
// slot's own, so it is an int only when the slots are.
struct StaticKind {
  enum class Kind : uint8_t { kInt, kBool, kUnknown } kind;
  bool via_slot;
};

StaticKind Merge(StaticKind a, StaticKind b) {
  if (a.kind != b.kind) return {StaticKind::Kind::kUnknown, false};
  return {a.kind, a.via_slot || b.via_slot};
}

class IntPathBuilder {
 public:
  IntPathBuilder(std::string_view text, const std::function<int(const std::string&)>& slot_of)
      : text_(text), slot_of_(slot_of) {}

  void Build(const Node& root, CompiledExpr::Program* p) {
    StaticKind kind = ResultKind(root);
    if (kind.kind == StaticKind::Kind::kUnknown) return;
    int32_t root_index;
    if (!NodeFor(root, &root_index)) return;
    p->int_nodes = std::move(nodes_);
    p->int_operands = std::move(operands_);
    p->int_root = root_index;
    p->int_needs_int_slots = kind.via_slot;
    p->int_result_kind =
        kind.kind == StaticKind::Kind::kBool ? Value::Kind::kBool : Value::Kind::kInt;
  }

 private:
  std::optional<Value> Fold(const Node& node) { return FoldConstant(node, text_); }

  StaticKind ResultKind(const Node& node) {
    using K = StaticKind::Kind;
    if (std::optional<Value> v = Fold(node)) {
      if (v->IsFloat()) return {K::kUnknown, false};
      return {v->kind == Value::Kind::kBool ? K::kBool : K::kInt, false};
    }
    const auto& c = node.children;
    switch (node.kind) {
      case Node::Kind::kName:
        return {K::kInt, true};
      case Node::Kind::kUnary:
        return {node.op == Op::kNot ? K::kBool : K::kInt, false};
      case Node::Kind::kBinary:
        return {node.op == Op::kDiv ? K::kUnknown : K::kInt, false};
      case Node::Kind::kCompare:
        return {K::kBool, false};
      case Node::Kind::kCall:
        if (node.op == Op::kToFloat) return {K::kUnknown, false};
        if (node.op != Op::kMin && node.op != Op::kMax) return {K::kInt, false};
        [[fallthrough]];
      case Node::Kind::kAnd:
      case Node::Kind::kOr: {
        StaticKind k = ResultKind(*c[0]);
        for (size_t i = 1; i < c.size(); ++i) k = Merge(k, ResultKind(*c[i]));
        return k;
      }
      case Node::Kind::kIfElse:
        if (std::optional<Value> cond = Fold(*c[1])) {
          return ResultKind(cond->Truthy() ? *c[0] : *c[2]);
        }
        return Merge(ResultKind(*c[0]), ResultKind(*c[2]));
      case Node::Kind::kConst:
      case Node::Kind::kList:
        break;
    }
    return {K::kUnknown, false};
  }

  // False when the node cannot be computed on the int path.
  bool Operand(const Node& node, IntOperand* out) {
    if (node.kind == Node::Kind::kName) {
      *out = IntOperand{Mode::kSlot, Op::kMove, slot_of_(node.name)};
      return true;
    }
    if (std::optional<Value> v = Fold(node)) {
      if (v->IsFloat()) return false;
      *out = IntOperand{Mode::kConst, Op::kMove, v->i};
      return true;
    }
    int32_t index;
    if (!NodeFor(node, &index)) return false;
    *out = IntOperand{Mode::kNode, Op::kMove, index};
    return true;
  }

  int32_t Add(const IntNode& node) {
    nodes_.push_back(node);
    return static_cast<int32_t>(nodes_.size()) - 1;
  }

  // A handler's fixed operand: its index, or the constant in k.
  static void Place(const IntOperand& o, int32_t* index, int64_t* k) {
    if (o.mode == Mode::kConst) {
      *k = o.value;
    } else {
      *index = static_cast<int32_t>(o.value);
    }
  }

  int32_t UnaryNode(Op op, const IntOperand& x) {
    IntNode n;
    n.fn = UnaryFn(op, x.mode);
    Place(x, &n.a, &n.k);
    return Add(n);
  }

  bool BinaryNode(Op op, const Node& lhs, const Node& rhs, int32_t* index) {
    IntOperand x, y;
    if (!Operand(lhs, &x) || !Operand(rhs, &y)) return false;
    // One constant field: a second constant operand (left unfolded because
    // the operation fails, as in 1 // 0) becomes a node of its own.
    if (x.mode == Mode::kConst && y.mode == Mode::kConst) {
      y = IntOperand{Mode::kNode, Op::kMove, UnaryNode(Op::kPos, y)};
    }
    IntNode n;
    n.fn = BinaryFn(op, x.mode, y.mode);
    Place(x, &n.a, &n.k);
    Place(y, &n.b, &n.k);
    *index = Add(n);
    return true;
  }

  bool NaryNode(Nary kind, std::vector<IntOperand> ops, int32_t* index) {
    IntNode n;
    n.fn = NaryFn(kind);
    n.first = static_cast<int32_t>(operands_.size());
    n.count = static_cast<int32_t>(ops.size());
    operands_.insert(operands_.end(), ops.begin(), ops.end());
    *index = Add(n);
    return true;
  }

  bool Operands(const std::vector<std::shared_ptr<const Node>>& nodes,
                std::vector<IntOperand>* out) {
    for (const auto& node : nodes) {
      IntOperand o;
      if (!Operand(*node, &o)) return false;
      out->push_back(o);
    }
    return true;
  }

  bool NodeFor(const Node& node, int32_t* index) {
    IntOperand o;
    if (node.kind == Node::Kind::kName || Fold(node)) {
      if (!Operand(node, &o)) return false;
      *index = UnaryNode(Op::kPos, o);
      return true;
    }
    const auto& c = node.children;
    std::vector<IntOperand> ops;
    switch (node.kind) {
      case Node::Kind::kUnary:
        if (!Operand(*c[0], &o)) return false;
        *index = UnaryNode(node.op, o);
        return true;
      case Node::Kind::kBinary:
        if (node.op == Op::kDiv) return false;
        return BinaryNode(node.op, *c[0], *c[1], index);
      case Node::Kind::kCall:
        if (node.op == Op::kToFloat) return false;
        if (node.op == Op::kCeilDiv) return BinaryNode(node.op, *c[0], *c[1], index);
        if (node.op == Op::kMin || node.op == Op::kMax) {
          return Operands(c, &ops) &&
                 NaryNode(node.op == Op::kMin ? Nary::kMin : Nary::kMax, ops, index);
        }
        if (!Operand(*c[0], &o)) return false;
        *index = UnaryNode(node.op, o);  // abs, int
        return true;
      case Node::Kind::kAnd:
      case Node::Kind::kOr: {
        bool is_and = node.kind == Node::Kind::kAnd;
        if (!Operands(c, &ops)) return false;
        if (ops.size() == 2 && ops[0].mode == Mode::kNode && ops[1].mode == Mode::kNode) {
          IntNode n;
          n.fn = ShortCircuitNodesFn(is_and);
          n.a = static_cast<int32_t>(ops[0].value);
          n.b = static_cast<int32_t>(ops[1].value);
          *index = Add(n);
          return true;
        }
        return NaryNode(is_and ? Nary::kAnd : Nary::kOr, ops, index);
      }
      case Node::Kind::kIfElse:
        if (std::optional<Value> cond = Fold(*c[1])) {
          return NodeFor(cond->Truthy() ? *c[0] : *c[2], index);
        }
        return Operands(c, &ops) && NaryNode(Nary::kIfElse, ops, index);
      case Node::Kind::kCompare:
        return CompareNode(node, index);
      case Node::Kind::kConst:
      case Node::Kind::kName:
      case Node::Kind::kList:
        break;
    }
    return false;
  }

  bool CompareNode(const Node& node, int32_t* index) {
    const auto& c = node.children;
    std::vector<IntOperand> ops;
    Op last = node.ops.back();
    if (last == Op::kIn || last == Op::kNotIn) {
      // Only `x in [...]` alone; a longer chain ending in `in` is rare
      // enough to leave to the general program.
      if (node.ops.size() != 1) return false;
      IntOperand x;
      if (!Operand(*c[0], &x)) return false;
      ops.push_back(x);
      return Operands(c[1]->children, &ops) &&
             NaryNode(last == Op::kIn ? Nary::kIn : Nary::kNotIn, ops, index);
    }
    if (node.ops.size() == 1) return BinaryNode(last, *c[0], *c[1], index);
    if (!Operands(c, &ops)) return false;
    for (size_t k = 1; k < ops.size(); ++k) ops[k].op = node.ops[k - 1];
    return NaryNode(Nary::kChain, ops, index);
  }

  std::string_view text_;
  const std::function<int(const std::string&)>& slot_of_;
  std::vector<IntNode> nodes_;
  std::vector<IntOperand> operands_;
};

}  // namespace

void BuildIntPath(const Expr::Node& root, std::string_view text,
                  const std::function<int(const std::string&)>& slot_of,
                  CompiledExpr::Program* program) {
  IntPathBuilder(text, slot_of).Build(root, program);
}

}  // namespace beast::expr
