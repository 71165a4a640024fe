// Evaluation of Kernel Tuner's Python value-list expressions (t1_value_list.hpp):
//   list  := term ('+' term)*
//   term  := '[' ']' | '[' expr (',' expr)* ']' | '[' expr 'for' NAME 'in' range ']'
//            | 'list(' range ')' | range
//   range := 'range(' expr [',' expr [',' expr]] ')'
// Element expressions are beast expressions (Python semantics).
#include "beast/space/t1_value_list.hpp"

#include <cctype>

#include "beast/core/error.hpp"
#include "beast/expr/expr.hpp"

namespace beast {
namespace {

class ListParser {
 public:
  explicit ListParser(const std::string& text) : text_(text) {}

  std::vector<Value> Parse() {
    std::vector<Value> out = Term();
    while (Accept("+")) {
      std::vector<Value> more = Term();
      out.insert(out.end(), more.begin(), more.end());
    }
    Skip();
    if (pos_ != text_.size()) Fail("unexpected \"" + text_.substr(pos_) + "\"");
    return out;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw Error(ErrorCode::kBadInput, "value list \"" + text_ + "\": " + why);
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(const std::string& token) {
    Skip();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  void Expect(const std::string& token) {
    if (!Accept(token)) Fail("expected \"" + token + "\" at position " + std::to_string(pos_ + 1));
  }
  // The text of one element: up to a top-level ',', ']', ')' or ' for '.
  std::string ElementText() {
    Skip();
    size_t start = pos_;
    int depth = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && depth-- == 0) break;
      if (c == ',' && depth == 0) break;
      if (depth == 0 && text_.compare(pos_, 5, " for ") == 0) break;
      ++pos_;
    }
    if (pos_ == start) Fail("expected a value at position " + std::to_string(pos_ + 1));
    return text_.substr(start, pos_ - start);
  }
  static Value Constant(const std::string& text, const std::string& name = "",
                        const Value* bound = nullptr) {
    return Expr::Parse(text).Evaluate([&](const std::string& n, Value* v) {
      if (bound && n == name) return *v = *bound, true;
      return false;
    });
  }
  std::vector<int64_t> Range() {
    Expect("range(");
    std::vector<int64_t> args;
    do {
      Value v = Constant(ElementText());
      if (v.kind == Value::Kind::kFloat) Fail("range takes integers");
      args.push_back(v.i);
    } while (Accept(","));
    Expect(")");
    if (args.size() > 3) Fail("range takes at most 3 arguments");
    int64_t start = args.size() > 1 ? args[0] : 0, stop = args.size() > 1 ? args[1] : args[0];
    int64_t step = args.size() > 2 ? args[2] : 1;
    if (step == 0) Fail("range step is zero");
    std::vector<int64_t> out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
      if (out.size() > (1u << 24)) Fail("range has more than 16777216 values");
      out.push_back(i);
      if (__builtin_add_overflow(i, step, &i)) break;  // past the int64 range: past stop
    }
    return out;
  }
  std::vector<Value> Term() {
    std::vector<Value> out;
    if (Accept("list(")) {
      for (int64_t i : Range()) out.push_back(Value::Int(i));
      Expect(")");
      return out;
    }
    Skip();
    if (text_.compare(pos_, 6, "range(") == 0) {
      for (int64_t i : Range()) out.push_back(Value::Int(i));
      return out;
    }
    Expect("[");
    if (Accept("]")) return out;
    std::string first = ElementText();
    if (Accept("for")) {
      Skip();
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      std::string name = text_.substr(start, pos_ - start);
      if (name.empty()) Fail("expected a loop variable after \"for\"");
      Expect("in");
      for (int64_t i : Range()) {
        Value bound = Value::Int(i);
        out.push_back(Constant(first, name, &bound));
      }
      Expect("]");
      return out;
    }
    out.push_back(Constant(first));
    while (Accept(",")) {
      if (Accept("]")) return out;  // trailing comma
      out.push_back(Constant(ElementText()));
    }
    Expect("]");
    return out;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Value> EvaluateT1ValueList(const std::string& text) {
  try {
    return ListParser(text).Parse();
  } catch (const Error& e) {
    std::string what = e.what();
    if (what.rfind("value list", 0) == 0) throw;
    throw Error(ErrorCode::kBadInput, "value list \"" + text + "\": " + what);
  }
}

}  // namespace beast
