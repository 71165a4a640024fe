// Tokenizer of the expression language: Python's spelling of numbers, names,
// keywords and operators, with a clear message for the Python (and C) syntax
// the language deliberately leaves out.
#include "beast/expr/expr_lexer.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "beast/core/error.hpp"

namespace beast::expr {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

struct Keyword {
  const char* text;
  TokenKind kind;
};
constexpr Keyword kKeywords[] = {
    {"and", TokenKind::kAnd},   {"or", TokenKind::kOr},       {"not", TokenKind::kNot},
    {"in", TokenKind::kIn},     {"if", TokenKind::kIf},       {"else", TokenKind::kElse},
    {"True", TokenKind::kTrue}, {"False", TokenKind::kFalse},
};

// Python keywords outside the language: rejected here rather than read as
// names, which would only fail later as an unknown name.
constexpr const char* kUnsupportedKeywords[] = {
    "None",     "is",     "lambda", "for",   "while",  "def",     "class", "return",   "import",
    "from",     "as",     "with",   "yield", "del",    "pass",    "break", "continue", "global",
    "nonlocal", "assert", "raise",  "try",   "except", "finally", "elif",  "async",    "await",
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
      if (pos_ == text_.size()) break;
      tokens.push_back(Next());
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.offset = text_.size();
    tokens.push_back(end);
    return tokens;
  }

 private:
  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }

  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  Token Make(TokenKind kind, size_t length) {
    Token t;
    t.kind = kind;
    t.offset = pos_;
    t.length = length;
    pos_ += length;
    return t;
  }

  Token Next() {
    char c = Peek();
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return Number();
    if (IsNameStart(c)) return Name();
    char d = Peek(1);
    switch (c) {
      case '+':
        return Make(TokenKind::kPlus, 1);
      case '-':
        return Make(TokenKind::kMinus, 1);
      case '*':
        return d == '*' ? Make(TokenKind::kStarStar, 2) : Make(TokenKind::kStar, 1);
      case '/':
        return d == '/' ? Make(TokenKind::kSlashSlash, 2) : Make(TokenKind::kSlash, 1);
      case '%':
        return Make(TokenKind::kPercent, 1);
      case '<':
        if (d == '<') ThrowParseError(text_, pos_, "'<<' is not supported");
        return d == '=' ? Make(TokenKind::kLe, 2) : Make(TokenKind::kLt, 1);
      case '>':
        if (d == '>') ThrowParseError(text_, pos_, "'>>' is not supported");
        return d == '=' ? Make(TokenKind::kGe, 2) : Make(TokenKind::kGt, 1);
      case '=':
        if (d == '=') return Make(TokenKind::kEqEq, 2);
        ThrowParseError(text_, pos_, "unexpected '=' (compare with '==')");
      case '!':
        if (d == '=') return Make(TokenKind::kNe, 2);
        ThrowParseError(text_, pos_, "unexpected '!' (negate with 'not')");
      case '(':
        return Make(TokenKind::kLParen, 1);
      case ')':
        return Make(TokenKind::kRParen, 1);
      case '[':
        return Make(TokenKind::kLBracket, 1);
      case ']':
        return Make(TokenKind::kRBracket, 1);
      case ',':
        return Make(TokenKind::kComma, 1);
      case '&':
        ThrowParseError(text_, pos_, "'&' is not supported (use 'and')");
      case '|':
        ThrowParseError(text_, pos_, "'|' is not supported (use 'or')");
      case '^':
      case '~':
        ThrowParseError(text_, pos_, std::string("'") + c + "' is not supported");
      default:
        break;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      ThrowParseError(text_, pos_, "unexpected non-ASCII character");
    }
    ThrowParseError(text_, pos_, std::string("unexpected character '") + c + "'");
  }

  Token Name() {
    size_t end = pos_;
    while (end < text_.size() && IsNameChar(text_[end])) ++end;
    std::string_view word = text_.substr(pos_, end - pos_);
    for (const Keyword& k : kKeywords) {
      if (word == k.text) return Make(k.kind, word.size());
    }
    for (const char* k : kUnsupportedKeywords) {
      if (word == k) ThrowParseError(text_, pos_, "'" + std::string(word) + "' is not supported");
    }
    return Make(TokenKind::kName, word.size());
  }

  Token Number() {
    size_t start = pos_;
    size_t end = pos_;
    char c1 = Peek(1);
    if (Peek() == '0' &&
        (c1 == 'x' || c1 == 'X' || c1 == 'o' || c1 == 'O' || c1 == 'b' || c1 == 'B')) {
      int base = (c1 == 'x' || c1 == 'X') ? 16 : (c1 == 'o' || c1 == 'O') ? 8 : 2;
      end += 2;
      size_t digits = end;
      while (end < text_.size() && IsNameChar(text_[end])) ++end;
      return IntToken(start, end, digits, base);
    }
    bool is_float = false;
    while (end < text_.size() && IsDigit(text_[end])) ++end;
    if (end < text_.size() && text_[end] == '.') {
      is_float = true;
      ++end;
      while (end < text_.size() && IsDigit(text_[end])) ++end;
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      is_float = true;
      ++end;
      if (end < text_.size() && (text_[end] == '+' || text_[end] == '-')) ++end;
      size_t exp_digits = end;
      while (end < text_.size() && IsDigit(text_[end])) ++end;
      if (end == exp_digits) BadLiteral(start, end);
    }
    if (end < text_.size() && (IsNameChar(text_[end]) || text_[end] == '.')) {
      BadLiteral(start, end + 1);
    }
    if (!is_float) return IntToken(start, end, start, 10);
    Token t = Make(TokenKind::kNumber, end - start);
    double v = 0.0;
    auto r = std::from_chars(text_.data() + start, text_.data() + end, v);
    if (r.ec == std::errc::result_out_of_range) {
      // Python reads an overflowing literal as inf and an underflowing one
      // as 0.0; from_chars leaves v alone, so decide by the exponent's sign.
      std::string_view lit = text_.substr(start, end - start);
      size_t e = lit.find_first_of("eE");
      bool negative_exp = e != std::string_view::npos && e + 1 < lit.size() && lit[e + 1] == '-';
      v = negative_exp ? 0.0 : HUGE_VAL;
    }
    t.value = Value::Float(v);
    return t;
  }

  Token IntToken(size_t start, size_t end, size_t digits, int base) {
    std::string_view lit = text_.substr(start, end - start);
    if (base == 10 && lit.size() > 1 && lit[0] == '0' && lit.find_first_not_of('0') != lit.npos) {
      ThrowParseError(text_, start,
                      "leading zeros in decimal integer literals are not permitted: '" +
                          std::string(lit) + "'");
    }
    uint64_t v = 0;
    auto r = std::from_chars(text_.data() + digits, text_.data() + end, v, base);
    if (digits == end || r.ptr != text_.data() + end) BadLiteral(start, end);
    if (r.ec == std::errc::result_out_of_range || v > static_cast<uint64_t>(INT64_MAX)) {
      ThrowParseError(text_, start,
                      "integer literal " + std::string(lit) + " is out of range (64-bit)");
    }
    Token t = Make(TokenKind::kNumber, end - start);
    t.value = Value::Int(static_cast<int64_t>(v));
    return t;
  }

  [[noreturn]] void BadLiteral(size_t start, size_t end) {
    end = end > text_.size() ? text_.size() : end;
    ThrowParseError(
        text_, start,
        "invalid number literal '" + std::string(text_.substr(start, end - start)) + "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view text) { return Lexer(text).Run(); }

void ThrowParseError(std::string_view text, size_t offset, const std::string& message) {
  // Positions count characters, not bytes: skip UTF-8 continuation bytes.
  size_t position = 1;
  for (size_t k = 0; k < offset && k < text.size(); ++k) {
    if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80) ++position;
  }
  if (offset > text.size()) position += offset - text.size();
  throw Error(ErrorCode::kBadInput, "expression \"" + std::string(text) + "\": position " +
                                        std::to_string(position) + ": " + message);
}

}  // namespace beast::expr
