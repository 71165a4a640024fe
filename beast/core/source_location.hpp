// SourceLocation: where a piece of user input came from — a file and line
// (a space description, a constraint set), or the command line — so every
// error about it can name the place.
#pragma once

#include <string>

namespace beast {

struct SourceLocation {
  std::string file;
  int line = 0;                  // 1-based; 0 when not from a file
  std::string ToString() const;  // "file:line" or "command line"
};

}  // namespace beast
