// Opening a vendor library (cuBLAS, cuDNN) at run time: the first of its
// file names the loader finds, then the same names in the CUDA toolkit's
// library folder of build time; and resolving its symbols. Shared by the
// baseline calls (cublas_call.cpp, cudnn_call.cpp).
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

namespace beast::harness {

// A dlopen handle of the first of `names` that opens; null when none does.
void* OpenFirstLibrary(const std::vector<std::string>& names);

// *fn = the library's `symbol`; false when it has none.
template <typename Fn>
bool ResolveSymbol(void* library, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  return *fn != nullptr;
}

}  // namespace beast::harness
