// What a compiled kernel needs of the device, as its compiler reports it
// (OpenCL: clGetKernelWorkGroupInfo; CUDA: ptxas -v). Each field is unset
// where the backend does not report it. Stored with every measurement and
// bound to the names post-compile constraints read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace beast {

struct CompiledResources {
  std::optional<int64_t> registers;     // per thread
  std::optional<int64_t> spill_bytes;   // spill stores + spill loads
  std::optional<int64_t> stack_bytes;   // stack frame / OpenCL private memory
  std::optional<int64_t> shared_bytes;  // CUDA shared / OpenCL local memory per group

  // The known ones under the names constraints read: registers, spills,
  // stack_bytes, local_mem_used.
  std::map<std::string, int64_t> Bindings() const {
    std::map<std::string, int64_t> out;
    if (registers) out["registers"] = *registers;
    if (spill_bytes) out["spills"] = *spill_bytes;
    if (stack_bytes) out["stack_bytes"] = *stack_bytes;
    if (shared_bytes) out["local_mem_used"] = *shared_bytes;
    return out;
  }
};

}  // namespace beast
