// The variables a kernel template is rendered with, as one JSON object:
// every problem name, parameter and derived value of the instance, plus
// LAYOUT, KERNEL_NAME, BACKEND, DTYPE and STORAGE. Tuner and exporter render alike.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "beast/space/bound_space.hpp"

namespace beast {

nlohmann::ordered_json TemplateVars(const SpaceSpec& spec, const Problem& problem,
                                    const Instance& instance, Backend backend);

// What a rendered source needs before its first line for `problem` on
// `backend`: OpenCL's pragma that enables double precision for an f64
// problem (OpenCL 1.2 requires it before any use of double); else "".
std::string SourcePrelude(const Problem& problem, Backend backend);

}  // namespace beast
