// Minimal JSON output helpers for --json modes and stored JSON fields.
#pragma once

#include <string>

namespace beast {

// The JSON string literal for text (quotes included, control characters escaped).
std::string JsonString(const std::string& text);
// A JSON number; NaN and infinities (not representable) become null.
std::string JsonNumber(double value);

}  // namespace beast
