// T1 import: a tuning problem in the T1 JSON format shared by Kernel Tuner,
// KTT and BAT (ConfigurationSpace.TuningParameters + Conditions) becomes a
// beast space: each parameter's value list, each condition a hard constraint.
// Checked against the parts of the T1 schema beast reads; anything else is
// one clear line naming the file and the offending entry.
#pragma once

#include <string>

#include "beast/space/space_spec.hpp"

namespace beast {

// The space of a T1 file; bind it with BoundSpace(spec, {}) (no problem or
// device names: a T1 space names only its own parameters).
SpaceSpec LoadT1(const std::string& path);

}  // namespace beast
