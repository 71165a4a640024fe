// The names of a loaded space checked before it is bound: every parameter,
// derived value and constraint may read only names bound before it (problem
// and device names, earlier parameters, derived values whose parameters are
// earlier), nothing is declared twice, and derived values form no cycle.
#pragma once

#include "beast/space/space_spec.hpp"

namespace beast {

// Throws Error(kBadInput, "FILE:LINE: ...") naming the first offending name.
void CheckSpaceNames(const SpaceSpec& spec);

}  // namespace beast
