// Tokens of the expression language, and the one place that formats parse
// errors ('expression "TEXT": position P: MESSAGE', P 1-based in characters).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "beast/core/value.hpp"

namespace beast::expr {

enum class TokenKind : unsigned char {
  kNumber,  // value holds the int or float
  kName,
  kTrue,
  kFalse,
  kAnd,
  kOr,
  kNot,
  kIn,
  kIf,
  kElse,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kSlashSlash,
  kPercent,
  kStarStar,
  kLt,
  kLe,
  kGt,
  kGe,
  kEqEq,
  kNe,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  size_t offset = 0;  // in bytes into the text
  size_t length = 0;
  Value value;  // kNumber only
};

// Splits text into tokens ending with kEnd. Throws Error(kBadInput) on a
// character or literal the language does not have.
std::vector<Token> Tokenize(std::string_view text);

[[noreturn]] void ThrowParseError(std::string_view text, size_t offset, const std::string& message);

}  // namespace beast::expr
