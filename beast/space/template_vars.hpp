// The variables a kernel template is rendered with, as one JSON object:
// every problem name, parameter and derived value of the instance, plus
// LAYOUT, KERNEL_NAME, BACKEND and DTYPE. Tuner and exporter render alike.
#pragma once

#include <nlohmann/json.hpp>

#include "beast/space/bound_space.hpp"

namespace beast {

nlohmann::ordered_json TemplateVars(const SpaceSpec& spec, const Problem& problem,
                                    const Instance& instance, Backend backend);

}  // namespace beast
