// The post-compile stage of a run: which post-compile constraints (stage:
// after_compile, or a --constraint reading a compiled resource) a backend can
// apply, and the check of one compiled config against them. OpenCL reports a
// kernel's local and private memory but no registers or spills, so a
// constraint reading those is not applied there (the run says so once); NVRTC
// (ptxas) reports all four. The tuner, not the device worker, holds the
// constraints and decides: the worker only reports resources, and the
// decision, recorded as the config's status, is what a resumed run finds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "beast/problem/device.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/compiled_resources.hpp"

namespace beast {

// The resource names (CompiledResourceNames()) the backend reports.
std::vector<std::string> ReportedResources(Backend backend);

// The post-compile constraints in force in `space`, split by whether the
// backend reports every resource each one reads.
std::vector<const ConstraintSpec*> AppliedPostCompile(const BoundSpace& space, Backend backend);
std::vector<const ConstraintSpec*> UnappliedPostCompile(const BoundSpace& space, Backend backend);

// One line naming the post-compile constraints of `spaces` the backend cannot
// apply (each once) and why; "" when there are none.
std::string UnappliedPostCompileLine(const std::vector<const BoundSpace*>& spaces, Backend backend);

// Why `config`, compiled with `resources`, fails a post-compile constraint in
// force; nullopt when it passes. Constraints reading a resource that is not
// known are not applied.
std::optional<std::string> PostCompileViolation(const BoundSpace& space, const Config& config,
                                                const CompiledResources& resources);

}  // namespace beast
