// Expr: the expression language of spaces — value sets, derived values and
// constraints — with Python's semantics for the subset it supports, so Kernel
// Tuner restriction strings work unchanged. Parsed once; compiled against a
// slot layout into a flat program that evaluates without allocating.
//
// Grammar (Python precedence, lowest first):
//   expr     := or_expr ['if' or_expr 'else' expr]
//   or_expr  := and_expr ('or' and_expr)*          (short-circuit, returns operand)
//   and_expr := not_expr ('and' not_expr)*
//   not_expr := 'not' not_expr | comparison
//   comparison := arith (('<'|'<='|'>'|'>='|'=='|'!='|'in'|'not in') arith)*  (chains)
//   arith    := term (('+'|'-') term)*
//   term     := factor (('*'|'/'|'//'|'%') factor)*
//   factor   := ('-'|'+') factor | power
//   power    := atom ['**' factor]                 (right-associative)
//   atom     := INT | FLOAT | True | False | NAME | NAME '(' args ')' |
//               '(' expr ')' | '[' list ']' | '(' list ')'   (lists only after 'in')
// Functions: min, max (2+ args), abs, int, float, ceil_div(a, b) (beast
// extension: -(-a // b)).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "beast/core/value.hpp"

namespace beast {

enum class EvalStatus : uint8_t {
  kOk,
  kDivisionByZero,  // x / 0, x // 0, x % 0
  kDomainError,     // 0 ** -1, int overflow in **, int() of inf/nan
};

class CompiledExpr {
 public:
  CompiledExpr();
  ~CompiledExpr();
  CompiledExpr(const CompiledExpr&);
  CompiledExpr& operator=(const CompiledExpr&);
  CompiledExpr(CompiledExpr&&) noexcept;
  CompiledExpr& operator=(CompiledExpr&&) noexcept;

  // slots[k] holds the value of slot k (see Expr::Compile). Never throws,
  // never allocates.
  EvalStatus Eval(const Value* slots, Value* out) const;
  // The slots this program reads, ascending, without repeats.
  const std::vector<int>& Slots() const;

  struct Program;  // private representation

 private:
  friend class Expr;
  std::unique_ptr<Program> program_;
};

// Whether `name` is one of the language's functions (min, max, ...): a
// name no space may bind to a value of its own.
bool IsFunctionName(std::string_view name);

class Expr {
 public:
  Expr();
  ~Expr();
  Expr(const Expr&);
  Expr& operator=(const Expr&);
  Expr(Expr&&) noexcept;
  Expr& operator=(Expr&&) noexcept;

  // Throws Error(kBadInput) with a message such as
  //   expression "a +* b": position 4: expected a value
  // (position is 1-based, in characters).
  static Expr Parse(std::string_view text);

  const std::string& text() const;
  // Free names in order of first use, without repeats (function names are
  // not names).
  const std::vector<std::string>& Names() const;
  bool IsConstant() const { return Names().empty(); }

  // slot_of maps a name to its slot, or -1 when unknown: then throws
  // Error(kNotFound) 'expression "...": unknown name "X"'.
  CompiledExpr Compile(const std::function<int(const std::string&)>& slot_of) const;

  // Convenience for constants and tests: evaluates with names looked up in
  // the given function (throws Error(kNotFound) for an unknown name,
  // Error(kBadInput) for division by zero or a domain error).
  Value Evaluate(const std::function<bool(const std::string&, Value*)>& lookup) const;

  struct Node;  // private representation

 private:
  std::string text_;
  std::vector<std::string> names_;
  std::shared_ptr<const Node> root_;
};

}  // namespace beast
