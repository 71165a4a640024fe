// Rendering variables of an instance (template_vars.hpp).
#include "beast/space/template_vars.hpp"

#include "beast/core/json.hpp"

namespace beast {

std::string TemplateVarsJson(const SpaceSpec& spec, const Problem& problem, const Instance& instance,
                             Backend backend) {
  std::string json = "{";
  for (const auto& [name, value] : instance.vars) {
    std::string text = value.kind == Value::Kind::kBool ? (value.i ? "1" : "0") : value.ToString();
    json += JsonString(name) + ": " + text + ", ";
  }
  std::string layout = problem.op() == OpKind::kConv2d ? LayoutName(problem.conv().layout) : "ROW_MAJOR";
  json += "\"LAYOUT\": " + JsonString(layout) + ", \"KERNEL_NAME\": " + JsonString(spec.kernel_name) +
          ", \"BACKEND\": " + JsonString(BackendName(backend)) + ", \"DTYPE\": \"float\"}";
  return json;
}

}  // namespace beast
