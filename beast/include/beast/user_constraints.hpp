// User constraints: extra constraints from the command line
// (--constraint "EXPR", soft unless written "hard: EXPR") and from files
// (--constraints FILE: a YAML list in the format of a space's constraints).
#pragma once

#include <string>
#include <vector>

#include "beast/space_spec.hpp"

namespace beast {

ConstraintSpec ParseUserConstraint(const std::string& text);
std::vector<ConstraintSpec> LoadConstraintFile(const std::string& path);

}  // namespace beast
