// Backend names (backend.hpp).
#include "beast/core/backend.hpp"

namespace beast {

const char* BackendName(Backend backend) { return backend == Backend::kOpenCL ? "opencl" : "cuda"; }

std::optional<Backend> ParseBackend(std::string_view name) {
  if (name == "opencl") return Backend::kOpenCL;
  if (name == "cuda") return Backend::kCuda;
  return std::nullopt;
}

}  // namespace beast
