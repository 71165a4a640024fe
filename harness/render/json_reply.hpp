// JSON reply parsing for the renderer protocol: each reply of render.py is one
// flat JSON object whose values are strings ({"source": "..."}). This reads
// exactly that shape, decoding every string escape (\uXXXX and surrogate
// pairs to UTF-8), so the rendered source arrives byte for byte.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace beast::harness {

// Parses a JSON object of string values. Returns false (with *why set to a
// short reason) when text is not such an object.
bool ParseJsonStringObject(std::string_view text, std::map<std::string, std::string>* out,
                           std::string* why);

}  // namespace beast::harness
