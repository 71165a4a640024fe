// Value lists of T1 files, which Kernel Tuner writes as Python list
// expressions: "[1, 2, 4]", "[1, 2] + list(range(32, 1024+1, 32))",
// "[2**i for i in range(0, 6)]". Evaluates that subset to the values.
#pragma once

#include <string>
#include <vector>

#include "beast/core/value.hpp"

namespace beast {

// Throws Error(kBadInput) "VALUES: WHY" for text outside the subset.
std::vector<Value> EvaluateT1ValueList(const std::string& text);

}  // namespace beast
