// Recursive-descent parser: one function per precedence level of Python's
// grammar, lowest first, building an Expr::Node tree. Every error names the
// character position where the reader should look.
#include "beast/expr/expr_parser.hpp"

#include <algorithm>
#include <utility>

#include "beast/expr/expr_lexer.hpp"

namespace beast::expr {
namespace {

using Node = Expr::Node;
using NodePtr = std::shared_ptr<Node>;

// Deep enough for any real constraint, shallow enough that the recursive
// parser, compiler and int-path evaluator stay far from the end of the stack.
constexpr int kMaxDepth = 200;

constexpr const char* kListMisplaced = "a list or tuple is only allowed right of 'in' or 'not in'";

struct Function {
  const char* name;
  Op op;
  size_t min_args;
  size_t max_args;  // 0: no limit
};
constexpr Function kFunctions[] = {
    {"min", Op::kMin, 2, 0},   {"max", Op::kMax, 2, 0},       {"abs", Op::kAbs, 1, 1},
    {"int", Op::kToInt, 1, 1}, {"float", Op::kToFloat, 1, 1}, {"ceil_div", Op::kCeilDiv, 2, 2},
};

NodePtr MakeNode(Node::Kind kind, size_t offset) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->offset = offset;
  return node;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text), tokens_(Tokenize(text)) {}

  ParsedExpr Run() {
    if (Cur().kind == TokenKind::kEnd) Fail(0, "empty expression");
    NodePtr root = ParseExpr();
    if (Cur().kind == TokenKind::kRParen || Cur().kind == TokenKind::kRBracket) {
      Fail(Cur().offset, "unmatched '" + std::string(Spelling(Cur())) + "'");
    }
    if (Cur().kind != TokenKind::kEnd) {
      Fail(Cur().offset, "unexpected '" + std::string(Spelling(Cur())) + "'");
    }
    RequireValue(*root);
    return ParsedExpr{std::move(root), std::move(names_)};
  }

 private:
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) {
      if (++p_->depth_ > kMaxDepth) p_->Fail(p_->Cur().offset, "expression nested too deeply");
    }
    ~DepthGuard() { --p_->depth_; }

   private:
    Parser* p_;
  };

  const Token& Cur() const { return tokens_[pos_]; }
  const Token& Next() const { return tokens_[std::min(pos_ + 1, tokens_.size() - 1)]; }
  void Advance() {
    if (pos_ + 1 < tokens_.size()) ++pos_;
  }
  std::string_view Spelling(const Token& t) const { return text_.substr(t.offset, t.length); }

  [[noreturn]] void Fail(size_t offset, const std::string& message) const {
    ThrowParseError(text_, offset, message);
  }

  // Also bounds the tree's height, which long operator chains (a + b + ...)
  // grow without nesting: compiling and evaluating recurse over it.
  void Adopt(Node* parent, NodePtr child) const {
    parent->constant = parent->constant && child->constant;
    parent->height = std::max(parent->height, child->height + 1);
    if (parent->height > kMaxDepth) Fail(parent->offset, "expression nested too deeply");
    parent->children.push_back(std::move(child));
  }

  void RequireValue(const Node& node) const {
    if (node.kind == Node::Kind::kList) Fail(node.offset, kListMisplaced);
  }

  NodePtr Combine(Node::Kind kind, Op op, NodePtr lhs, NodePtr rhs) {
    RequireValue(*lhs);
    RequireValue(*rhs);
    NodePtr node = MakeNode(kind, lhs->offset);
    node->op = op;
    Adopt(node.get(), std::move(lhs));
    Adopt(node.get(), std::move(rhs));
    return node;
  }

  // expr := or_expr ['if' or_expr 'else' expr]
  NodePtr ParseExpr() {
    DepthGuard guard(this);
    NodePtr body = ParseOr();
    if (Cur().kind != TokenKind::kIf) return body;
    Advance();
    NodePtr condition = ParseOr();
    if (Cur().kind != TokenKind::kElse) Fail(Cur().offset, "expected 'else'");
    Advance();
    NodePtr orelse = ParseExpr();
    RequireValue(*body);
    RequireValue(*condition);
    RequireValue(*orelse);
    NodePtr node = MakeNode(Node::Kind::kIfElse, body->offset);
    Adopt(node.get(), std::move(body));
    Adopt(node.get(), std::move(condition));
    Adopt(node.get(), std::move(orelse));
    return node;
  }

  // or_expr := and_expr ('or' and_expr)*, and_expr likewise over not_expr.
  NodePtr ParseOr() { return ParseLogical(Node::Kind::kOr); }
  NodePtr ParseAnd() { return ParseLogical(Node::Kind::kAnd); }

  NodePtr ParseLogical(Node::Kind kind) {
    bool is_or = kind == Node::Kind::kOr;
    TokenKind keyword = is_or ? TokenKind::kOr : TokenKind::kAnd;
    NodePtr first = is_or ? ParseAnd() : ParseNot();
    if (Cur().kind != keyword) return first;
    RequireValue(*first);
    NodePtr node = MakeNode(kind, first->offset);
    Adopt(node.get(), std::move(first));
    while (Cur().kind == keyword) {
      Advance();
      NodePtr next = is_or ? ParseAnd() : ParseNot();
      RequireValue(*next);
      Adopt(node.get(), std::move(next));
    }
    return node;
  }

  // not_expr := 'not' not_expr | comparison
  NodePtr ParseNot() {
    if (Cur().kind != TokenKind::kNot) return ParseComparison();
    DepthGuard guard(this);
    size_t offset = Cur().offset;
    Advance();
    NodePtr operand = ParseNot();
    RequireValue(*operand);
    NodePtr node = MakeNode(Node::Kind::kUnary, offset);
    node->op = Op::kNot;
    Adopt(node.get(), std::move(operand));
    return node;
  }

  bool ComparisonOp(Op* op) const {
    switch (Cur().kind) {
      case TokenKind::kLt:
        *op = Op::kLt;
        return true;
      case TokenKind::kLe:
        *op = Op::kLe;
        return true;
      case TokenKind::kGt:
        *op = Op::kGt;
        return true;
      case TokenKind::kGe:
        *op = Op::kGe;
        return true;
      case TokenKind::kEqEq:
        *op = Op::kEq;
        return true;
      case TokenKind::kNe:
        *op = Op::kNe;
        return true;
      case TokenKind::kIn:
        *op = Op::kIn;
        return true;
      case TokenKind::kNot:
        *op = Op::kNotIn;
        return Next().kind == TokenKind::kIn;
      default:
        return false;
    }
  }

  // comparison := arith (COMPARE_OP arith)*, a chain a < b < c.
  NodePtr ParseComparison() {
    NodePtr first = ParseArith();
    Op op;
    if (!ComparisonOp(&op)) return first;
    NodePtr node = MakeNode(Node::Kind::kCompare, first->offset);
    Adopt(node.get(), std::move(first));
    while (ComparisonOp(&op)) {
      if (op == Op::kNotIn) Advance();
      Advance();
      node->ops.push_back(op);
      Adopt(node.get(), ParseArith());
    }
    // Lists are operands only right of in / not in, at the end of the chain
    // (a list is never compared with < or ==).
    size_t n = node->children.size();
    for (size_t k = 0; k < n; ++k) {
      const Node& operand = *node->children[k];
      bool after_in = k > 0 && (node->ops[k - 1] == Op::kIn || node->ops[k - 1] == Op::kNotIn);
      if (after_in && operand.kind != Node::Kind::kList) {
        Fail(operand.offset, std::string(node->ops[k - 1] == Op::kIn ? "'in'" : "'not in'") +
                                 " needs a list or tuple on its right, such as [1, 2, 4]");
      }
      if (!after_in || k + 1 < n) RequireValue(operand);
    }
    return node;
  }

  // arith := term (('+'|'-') term)*
  NodePtr ParseArith() {
    NodePtr node = ParseTerm();
    while (Cur().kind == TokenKind::kPlus || Cur().kind == TokenKind::kMinus) {
      Op op = Cur().kind == TokenKind::kPlus ? Op::kAdd : Op::kSub;
      Advance();
      node = Combine(Node::Kind::kBinary, op, std::move(node), ParseTerm());
    }
    return node;
  }

  // term := factor (('*'|'/'|'//'|'%') factor)*
  NodePtr ParseTerm() {
    NodePtr node = ParseFactor();
    while (true) {
      Op op;
      switch (Cur().kind) {
        case TokenKind::kStar:
          op = Op::kMul;
          break;
        case TokenKind::kSlash:
          op = Op::kDiv;
          break;
        case TokenKind::kSlashSlash:
          op = Op::kFloorDiv;
          break;
        case TokenKind::kPercent:
          op = Op::kMod;
          break;
        default:
          return node;
      }
      Advance();
      node = Combine(Node::Kind::kBinary, op, std::move(node), ParseFactor());
    }
  }

  // factor := ('-'|'+') factor | power
  NodePtr ParseFactor() {
    if (Cur().kind != TokenKind::kMinus && Cur().kind != TokenKind::kPlus) return ParsePower();
    DepthGuard guard(this);
    size_t offset = Cur().offset;
    Op op = Cur().kind == TokenKind::kMinus ? Op::kNeg : Op::kPos;
    Advance();
    NodePtr operand = ParseFactor();
    RequireValue(*operand);
    NodePtr node = MakeNode(Node::Kind::kUnary, offset);
    node->op = op;
    Adopt(node.get(), std::move(operand));
    return node;
  }

  // power := atom ['**' factor]: right-associative, and binds tighter than a
  // unary minus on its left (-2 ** 2 == -4).
  NodePtr ParsePower() {
    NodePtr base = ParseAtom();
    if (Cur().kind != TokenKind::kStarStar) return base;
    DepthGuard guard(this);
    Advance();
    return Combine(Node::Kind::kBinary, Op::kPow, std::move(base), ParseFactor());
  }

  NodePtr ParseAtom() {
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kNumber:
      case TokenKind::kTrue:
      case TokenKind::kFalse: {
        NodePtr node = MakeNode(Node::Kind::kConst, t.offset);
        node->value =
            t.kind == TokenKind::kNumber ? t.value : Value::Bool(t.kind == TokenKind::kTrue);
        Advance();
        return node;
      }
      case TokenKind::kName: {
        if (Next().kind == TokenKind::kLParen) return ParseCall();
        NodePtr node = MakeNode(Node::Kind::kName, t.offset);
        node->name = std::string(Spelling(t));
        node->constant = false;
        if (std::find(names_.begin(), names_.end(), node->name) == names_.end()) {
          names_.push_back(node->name);
        }
        Advance();
        return node;
      }
      case TokenKind::kLParen:
        return ParseParenthesized();
      case TokenKind::kLBracket: {
        size_t open = t.offset;
        Advance();
        NodePtr list = MakeNode(Node::Kind::kList, open);
        ParseItems(list.get(), TokenKind::kRBracket, open);
        return list;
      }
      default:
        Fail(t.offset, "expected a value");
    }
  }

  // Items up to and including the closing token, commas between (a trailing
  // comma allowed, as in Python).
  void ParseItems(Node* list, TokenKind close, size_t open) {
    char close_char = close == TokenKind::kRParen ? ')' : ']';
    while (Cur().kind != close) {
      NodePtr item = ParseExpr();
      RequireValue(*item);
      Adopt(list, std::move(item));
      if (Cur().kind == TokenKind::kComma) {
        Advance();
      } else if (Cur().kind != close) {
        ExpectClose(close_char, open, std::string("expected ',' or '") + close_char + "'");
      }
    }
    Advance();
  }

  [[noreturn]] void ExpectClose(char close_char, size_t open, const std::string& message) {
    if (Cur().kind == TokenKind::kEnd) {
      Fail(open, std::string("'") + (close_char == ')' ? '(' : '[') + "' was never closed");
    }
    Fail(Cur().offset, message);
  }

  // '(' expr ')' is grouping; '()', '(x,)' and '(x, y)' are tuples.
  NodePtr ParseParenthesized() {
    size_t open = Cur().offset;
    Advance();
    if (Cur().kind == TokenKind::kRParen) {
      Advance();
      return MakeNode(Node::Kind::kList, open);
    }
    NodePtr first = ParseExpr();
    if (Cur().kind == TokenKind::kRParen) {
      Advance();
      return first;
    }
    if (Cur().kind != TokenKind::kComma) ExpectClose(')', open, "expected ')'");
    Advance();
    RequireValue(*first);
    NodePtr tuple = MakeNode(Node::Kind::kList, open);
    Adopt(tuple.get(), std::move(first));
    ParseItems(tuple.get(), TokenKind::kRParen, open);
    return tuple;
  }

  NodePtr ParseCall() {
    const Token& name_token = Cur();
    std::string name(Spelling(name_token));
    const Function* function = nullptr;
    for (const Function& f : kFunctions) {
      if (name == f.name) function = &f;
    }
    if (function == nullptr) {
      Fail(name_token.offset,
           "unknown function '" + name + "' (known: min, max, abs, int, float, ceil_div)");
    }
    NodePtr call = MakeNode(Node::Kind::kCall, name_token.offset);
    call->name = name;
    call->op = function->op;
    Advance();
    size_t open = Cur().offset;
    Advance();
    ParseItems(call.get(), TokenKind::kRParen, open);
    size_t n = call->children.size();
    if (n < function->min_args || (function->max_args != 0 && n > function->max_args)) {
      std::string count = function->max_args == function->min_args ? "exactly " : "at least ";
      count += std::to_string(function->min_args);
      Fail(call->offset, name + "() takes " + count +
                             (function->min_args == 1 ? " argument" : " arguments") + " (" +
                             std::to_string(n) + " given)");
    }
    return call;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::string> names_;
};

}  // namespace

ParsedExpr ParseExpression(std::string_view text) { return Parser(text).Run(); }

}  // namespace beast::expr

namespace beast {

bool IsFunctionName(std::string_view name) {
  for (const expr::Function& f : expr::kFunctions) {
    if (name == f.name) return true;
  }
  return false;
}

}  // namespace beast
