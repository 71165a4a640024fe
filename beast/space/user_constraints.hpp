// User constraints: extra constraints from the command line
// (--constraint "EXPR", soft unless written "hard: EXPR"; post-compile when it
// reads a compiled resource such as registers) and from files (--constraints
// FILE: a YAML list in the format of a space's constraints).
#pragma once

#include <string>
#include <vector>

#include "beast/space/space_spec.hpp"

namespace beast {

ConstraintSpec ParseUserConstraint(const std::string& text);
// `path_or_set` is a file, or the name of a reusable set in
// constraints_dir/sets ("full_warps" -> constraints/sets/full_warps.yaml).
std::vector<ConstraintSpec> LoadConstraintFile(const std::string& path_or_set,
                                               const std::string& constraints_dir = "");

}  // namespace beast
