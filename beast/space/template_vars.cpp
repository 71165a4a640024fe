// Rendering variables of an instance (template_vars.hpp).
#include "beast/space/template_vars.hpp"

namespace beast {

nlohmann::ordered_json TemplateVars(const SpaceSpec& spec, const Problem& problem,
                                    const Instance& instance, Backend backend) {
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  for (const auto& [name, value] : instance.vars) {
    if (value.kind == Value::Kind::kFloat) {
      vars[name] = value.f;
    } else {
      vars[name] = value.i;  // a bool renders as 1 or 0
    }
  }
  vars["LAYOUT"] =
      problem.op() == OpKind::kConv2d ? LayoutName(problem.conv().layout) : "ROW_MAJOR";
  vars["KERNEL_NAME"] = spec.kernel_name;
  vars["BACKEND"] = BackendName(backend);
  // The C type kernels compute in (float for f16 and bf16, storage types
  // that accumulate in f32), and the dtype the buffers hold.
  vars["DTYPE"] = problem.dtype() == DType::kF64 ? "double" : "float";
  vars["STORAGE"] = DTypeName(problem.dtype());
  return vars;
}

std::string SourcePrelude(const Problem& problem, Backend backend) {
  if (problem.dtype() == DType::kF64 && backend == Backend::kOpenCL)
    return "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  return "";
}

}  // namespace beast
