// Expr: parse once, then compile against a slot layout or evaluate directly.
#include "beast/expr/expr.hpp"

#include <utility>

#include "beast/core/error.hpp"
#include "beast/expr/expr_compile.hpp"
#include "beast/expr/expr_parser.hpp"

namespace beast {

Expr::Expr() = default;
Expr::~Expr() = default;
Expr::Expr(const Expr&) = default;
Expr& Expr::operator=(const Expr&) = default;
Expr::Expr(Expr&&) noexcept = default;
Expr& Expr::operator=(Expr&&) noexcept = default;

Expr Expr::Parse(std::string_view text) {
  expr::ParsedExpr parsed = expr::ParseExpression(text);
  Expr e;
  e.text_ = std::string(text);
  e.names_ = std::move(parsed.names);
  e.root_ = std::move(parsed.root);
  return e;
}

const std::string& Expr::text() const { return text_; }

const std::vector<std::string>& Expr::Names() const { return names_; }

CompiledExpr Expr::Compile(const std::function<int(const std::string&)>& slot_of) const {
  BEAST_CHECK(root_ != nullptr);  // a default-constructed Expr was never parsed
  // Every name must be known, also one in a branch that folding removes: a
  // misspelt name is an error whether or not it would be reached.
  for (const std::string& name : names_) {
    if (slot_of(name) < 0) {
      throw Error(ErrorCode::kNotFound,
                  "expression \"" + text_ + "\": unknown name \"" + name + "\"");
    }
  }
  CompiledExpr compiled;
  compiled.program_ =
      std::make_unique<CompiledExpr::Program>(expr::CompileProgram(*root_, text_, slot_of));
  return compiled;
}

Value Expr::Evaluate(const std::function<bool(const std::string&, Value*)>& lookup) const {
  std::vector<Value> values(names_.size());
  for (size_t k = 0; k < names_.size(); ++k) {
    if (!lookup(names_[k], &values[k])) {
      throw Error(ErrorCode::kNotFound,
                  "expression \"" + text_ + "\": unknown name \"" + names_[k] + "\"");
    }
  }
  CompiledExpr compiled = Compile([this](const std::string& name) {
    for (size_t k = 0; k < names_.size(); ++k) {
      if (names_[k] == name) return static_cast<int>(k);
    }
    return -1;
  });
  Value result;
  switch (compiled.Eval(values.data(), &result)) {
    case EvalStatus::kOk:
      return result;
    case EvalStatus::kDivisionByZero:
      throw Error(ErrorCode::kBadInput, "expression \"" + text_ + "\": division by zero");
    case EvalStatus::kDomainError:
      break;
  }
  throw Error(ErrorCode::kBadInput,
              "expression \"" + text_ +
                  "\": math domain error (integer overflow, 0 ** negative, complex power, "
                  "or int() of inf/nan)");
}

}  // namespace beast
