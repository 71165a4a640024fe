// SourceLocation's text form (source_location.hpp).
#include "beast/core/source_location.hpp"

namespace beast {

std::string SourceLocation::ToString() const {
  if (file.empty()) return "command line";
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

}  // namespace beast
