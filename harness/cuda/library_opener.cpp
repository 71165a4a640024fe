// Opening a vendor library at run time (library_opener.hpp).
#include "harness/cuda/library_opener.hpp"

namespace beast::harness {
namespace {

// Where the CUDA toolkit's libraries were at build time, tried after the
// loader's own search path.
#ifdef BEAST_CUDA_LIBRARY_DIR
constexpr const char* kToolkitLibraryDir = BEAST_CUDA_LIBRARY_DIR;
#else
constexpr const char* kToolkitLibraryDir = "";
#endif

}  // namespace

void* OpenFirstLibrary(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    if (*kToolkitLibraryDir) {
      if (void* h =
              dlopen((std::string(kToolkitLibraryDir) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL))
        return h;
    }
  }
  return nullptr;
}

}  // namespace beast::harness
