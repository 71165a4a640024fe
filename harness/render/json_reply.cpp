// JSON reply parsing for the renderer protocol (json_reply.hpp).
#include "harness/render/json_reply.hpp"

#include <cstdint>
#include <cstring>

namespace beast::harness {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  // Reads a JSON string literal (after optional space) into *out.
  bool String(std::string* out, std::string* why) {
    out->clear();
    if (!Consume('"')) return Fail("expected a string", why);
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string", why);
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      static constexpr char kEscaped[] = "\"\\/bfnrt";
      static constexpr char kMeant[] = "\"\\/\b\f\n\r\t";
      if (const char* hit = std::strchr(kEscaped, e); hit && e != '\0') {
        out->push_back(kMeant[hit - kEscaped]);
        continue;
      }
      if (e != 'u') return Fail(std::string("bad escape \\") + e, why);
      uint32_t code = 0;
      if (!Hex4(&code)) return Fail("bad \\u escape", why);
      if (code >= 0xD800 && code < 0xDC00) {  // high surrogate: a low one must follow
        uint32_t low = 0;
        if (pos_ + 2 > text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u') {
          return Fail("unpaired surrogate", why);
        }
        pos_ += 2;
        if (!Hex4(&low) || low < 0xDC00 || low >= 0xE000) return Fail("unpaired surrogate", why);
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      } else if (code >= 0xDC00 && code < 0xE000) {
        return Fail("unpaired surrogate", why);
      }
      AppendUtf8(code, out);
    }
    return Fail("unterminated string", why);
  }

 private:
  bool Fail(const std::string& reason, std::string* why) {
    *why = reason + " at byte " + std::to_string(pos_);
    return false;
  }

  bool Hex4(uint32_t* code) {
    if (pos_ + 4 > text_.size()) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= h - '0';
      else if (h >= 'a' && h <= 'f')
        v |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        v |= h - 'A' + 10;
      else
        return false;
    }
    *code = v;
    return true;
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

bool ParseJsonStringObject(std::string_view text, std::map<std::string, std::string>* out,
                           std::string* why) {
  out->clear();
  Reader r(text);
  if (!r.Consume('{')) {
    *why = "not a JSON object";
    return false;
  }
  if (!r.Consume('}')) {
    do {
      std::string key, value;
      if (!r.String(&key, why)) return false;
      if (!r.Consume(':')) {
        *why = "expected ':' after \"" + key + "\"";
        return false;
      }
      if (!r.String(&value, why)) return false;
      (*out)[key] = std::move(value);
    } while (r.Consume(','));
    if (!r.Consume('}')) {
      *why = "expected ',' or '}'";
      return false;
    }
  }
  r.SkipSpace();
  if (!r.AtEnd()) {
    *why = "text after the object";
    return false;
  }
  return true;
}

}  // namespace beast::harness
