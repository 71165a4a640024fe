// Backend: the kind of device and compiler a kernel is built and run with.
// The enum is what the code passes around; its name ("opencl", "cuda")
// appears only in text: device ids, the database, JSON, the worker's
// command line.
#pragma once

#include <optional>
#include <string_view>

namespace beast {

enum class Backend { kOpenCL, kCuda };

// "opencl" or "cuda".
const char* BackendName(Backend backend);
// The backend named `name`; nullopt for any other text (a database may hold
// others, e.g. "kernel_tuner" for imported results).
std::optional<Backend> ParseBackend(std::string_view name);

}  // namespace beast
