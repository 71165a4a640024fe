// NVRTC compilation to cubin (nvrtc_compiler.hpp). Built against the CUDA
// toolkit's NVRTC when CMake found it (BEAST_HAVE_NVRTC); NVRTC needs no
// driver and no GPU.
#include "harness/cuda/nvrtc_compiler.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "beast/core/error.hpp"

#ifdef BEAST_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace beast::harness {

std::vector<std::string> CudaCompileOptions(const std::string& arch) {
  return {"-arch=" + arch, "--ptxas-options=-v", "-default-device"};
}

#ifdef BEAST_HAVE_NVRTC

bool NvrtcAvailable() { return true; }

std::string NvrtcVersion() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

// One NVRTC compilation: `read` takes the output from the compiled program
// (false when there is none). Every failure is in the log, never thrown.
CudaCompileResult Compile(const std::string& source, const std::string& file,
                          const std::vector<std::string>& options,
                          const std::function<bool(nvrtcProgram, CudaCompileResult*)>& read) {
  CudaCompileResult out;
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  nvrtcResult status =
      nvrtcCreateProgram(&program, source.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(status);
    return out;
  }
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  status = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::vector<char> log(log_size + 1, '\0');
  if (log_size) nvrtcGetProgramLog(program, log.data());
  out.log = log.data();
  if (status == NVRTC_SUCCESS) {
    out.ok = read(program, &out);
  } else {
    out.rejected = status == NVRTC_ERROR_COMPILATION;
    out.log += std::string(out.log.empty() ? "" : "\n") +
               "nvrtcCompileProgram: " + nvrtcGetErrorString(status);
  }
  nvrtcDestroyProgram(&program);
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

CudaCompileResult CompileCuda(const std::string& source, const std::string& arch,
                              const std::string& kernel_name) {
  return Compile(source, kernel_name + ".cu", CudaCompileOptions(arch),
                 [&](nvrtcProgram program, CudaCompileResult* out) {
                   size_t size = 0;
                   if (nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0) {
                     out->log += "\nno cubin produced for " + arch;
                     return false;
                   }
                   out->cubin.resize(size);
                   nvrtcGetCUBIN(program, out->cubin.data());
                   out->resources = ParsePtxasInfo(out->log, kernel_name);
                   return true;
                 });
}

CudaCompileResult CompileCudaPtx(const std::string& source, const std::string& compute_arch) {
  return Compile(source, "beast.cu", {"-arch=" + compute_arch, "-default-device"},
                 [&](nvrtcProgram program, CudaCompileResult* out) {
                   size_t size = 0;
                   if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1) {
                     out->log += "\nno PTX produced for " + compute_arch;
                     return false;
                   }
                   out->ptx.resize(size);
                   nvrtcGetPTX(program, out->ptx.data());
                   out->ptx.resize(size - 1);  // without its terminating NUL
                   return true;
                 });
}

std::vector<int> NvrtcSupportedArchs() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  std::sort(archs.begin(), archs.end());
  return archs;
}

std::string OldestNvrtcComputeArch() {
  std::vector<int> archs = NvrtcSupportedArchs();
  return "compute_" + std::to_string(archs.empty() ? 75 : archs.front());
}

#else

bool NvrtcAvailable() { return false; }

CudaCompileResult CompileCudaPtx(const std::string&, const std::string& compute_arch) {
  throw Error(ErrorCode::kEnvironment,
              "cannot compile for " + compute_arch +
                  ": this beast was built without NVRTC (CUDA toolkit not found)");
}

std::string OldestNvrtcComputeArch() { return ""; }
std::vector<int> NvrtcSupportedArchs() { return {}; }
std::string NvrtcVersion() { return ""; }

CudaCompileResult CompileCuda(const std::string&, const std::string& arch, const std::string&) {
  throw Error(ErrorCode::kEnvironment,
              "cannot compile for " + arch +
                  ": this beast was built without NVRTC (CUDA toolkit not found)");
}

#endif

}  // namespace beast::harness
