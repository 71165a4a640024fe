// Post-compile constraints per backend, and the check of one config
// (post_compile.hpp).
#include "beast/space/post_compile.hpp"

#include <algorithm>
#include <set>

namespace beast {
namespace {

bool Reads(const ConstraintSpec& c, const std::vector<std::string>& names) {
  for (const auto& n : c.expr.Names()) {
    if (std::find(names.begin(), names.end(), n) != names.end()) return true;
  }
  return false;
}

// The compiled resources the backend does not report.
std::vector<std::string> Unreported(Backend backend) {
  std::vector<std::string> reported = ReportedResources(backend), out;
  for (const auto& n : CompiledResourceNames()) {
    if (std::find(reported.begin(), reported.end(), n) == reported.end()) out.push_back(n);
  }
  return out;
}

std::vector<const ConstraintSpec*> Split(const BoundSpace& space, Backend backend, bool applied) {
  const std::vector<std::string> unreported = Unreported(backend);
  std::vector<const ConstraintSpec*> out;
  for (const auto& c : space.constraints()) {
    if (c.stage != ConstraintStage::kAfterCompile) continue;
    if (Reads(c, unreported) != applied) out.push_back(&c);
  }
  return out;
}

}  // namespace

std::vector<std::string> ReportedResources(Backend backend) {
  // CL_KERNEL_LOCAL_MEM_SIZE and CL_KERNEL_PRIVATE_MEM_SIZE; ptxas -v says all.
  if (backend == Backend::kOpenCL) return {"stack_bytes", "local_mem_used"};
  return CompiledResourceNames();
}

std::vector<const ConstraintSpec*> AppliedPostCompile(const BoundSpace& space, Backend backend) {
  return Split(space, backend, true);
}

std::vector<const ConstraintSpec*> UnappliedPostCompile(const BoundSpace& space, Backend backend) {
  return Split(space, backend, false);
}

std::string UnappliedPostCompileLine(const std::vector<const BoundSpace*>& spaces,
                                     Backend backend) {
  std::set<std::string> seen;
  std::string listed;
  for (const BoundSpace* space : spaces) {
    for (const ConstraintSpec* c : UnappliedPostCompile(*space, backend)) {
      std::string text = "\"" + c->expr.text() + "\" (" + c->where.ToString() + ")";
      if (seen.insert(text).second) listed += (listed.empty() ? "" : ", ") + text;
    }
  }
  if (listed.empty()) return "";
  std::string missing;
  for (const auto& n : Unreported(backend)) missing += (missing.empty() ? "" : " or ") + n;
  return std::string("post-compile constraints not applied: ") + BackendName(backend) +
         " reports no " + missing + ": " + listed;
}

std::optional<std::string> PostCompileViolation(const BoundSpace& space, const Config& config,
                                                const CompiledResources& resources) {
  std::string why;
  if (space.CheckAfterCompile(config, resources.Bindings(), &why, /*skip_missing=*/true))
    return std::nullopt;
  return why;
}

}  // namespace beast
