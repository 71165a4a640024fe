// The JSON a verb prints: bytes that are not UTF-8 in a text it carries (a
// driver's or compiler's message, recorded as it came) become U+FFFD instead
// of failing the whole dump (nlohmann's default throws).
#pragma once

#include <string>

namespace beast::cli {

template <class Json>
std::string JsonText(const Json& value, int indent = 2) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace beast::cli
