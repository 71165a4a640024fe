// NVRTC compilation to cubin (nvrtc_compiler.hpp). Built against the CUDA
// toolkit's NVRTC when CMake found it (BEAST_HAVE_NVRTC); NVRTC needs no
// driver and no GPU.
#include "harness/nvrtc_compiler.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "beast/error.hpp"

#ifdef BEAST_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace beast::harness {

#ifdef BEAST_HAVE_NVRTC

bool NvrtcAvailable() { return true; }

std::string NvrtcVersion() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

CudaCompileResult CompileCuda(const std::string& source, const std::string& arch,
                              const std::string& kernel_name) {
  CudaCompileResult out;
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  nvrtcResult status = nvrtcCreateProgram(&program, source.c_str(), (kernel_name + ".cu").c_str(),
                                          0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(status);
    return out;
  }
  std::string arch_option = "-arch=" + arch;
  const char* options[] = {arch_option.c_str(), "--ptxas-options=-v", "-default-device"};
  status = nvrtcCompileProgram(program, 3, options);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::vector<char> log(log_size + 1, '\0');
  if (log_size) nvrtcGetProgramLog(program, log.data());
  out.log = log.data();
  if (status == NVRTC_SUCCESS) {
    size_t cubin_size = 0;
    if (nvrtcGetCUBINSize(program, &cubin_size) == NVRTC_SUCCESS && cubin_size > 0) {
      out.cubin.resize(cubin_size);
      nvrtcGetCUBIN(program, out.cubin.data());
      out.ok = true;
      out.resources = ParsePtxasInfo(out.log, kernel_name);
    } else {
      out.log += "\nno cubin produced for " + arch;
    }
  } else {
    out.log += std::string(out.log.empty() ? "" : "\n") +
               "nvrtcCompileProgram: " + nvrtcGetErrorString(status);
  }
  nvrtcDestroyProgram(&program);
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

CudaCompileResult CompileCudaPtx(const std::string& source, const std::string& compute_arch) {
  CudaCompileResult out;
  auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  nvrtcResult status =
      nvrtcCreateProgram(&program, source.c_str(), "beast.cu", 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(status);
    return out;
  }
  std::string arch_option = "-arch=" + compute_arch;
  const char* options[] = {arch_option.c_str(), "-default-device"};
  status = nvrtcCompileProgram(program, 2, options);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::vector<char> log(log_size + 1, '\0');
  if (log_size) nvrtcGetProgramLog(program, log.data());
  out.log = log.data();
  size_t ptx_size = 0;
  if (status == NVRTC_SUCCESS && nvrtcGetPTXSize(program, &ptx_size) == NVRTC_SUCCESS &&
      ptx_size > 1) {
    out.ptx.resize(ptx_size);
    nvrtcGetPTX(program, out.ptx.data());
    out.ptx.resize(ptx_size - 1);  // without its terminating NUL
    out.ok = true;
  } else if (status != NVRTC_SUCCESS) {
    out.log += std::string(out.log.empty() ? "" : "\n") +
               "nvrtcCompileProgram: " + nvrtcGetErrorString(status);
  }
  nvrtcDestroyProgram(&program);
  out.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string OldestNvrtcComputeArch() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return "compute_75";
  std::vector<int> archs(static_cast<size_t>(count));
  nvrtcGetSupportedArchs(archs.data());
  return "compute_" + std::to_string(*std::min_element(archs.begin(), archs.end()));
}

#else

bool NvrtcAvailable() { return false; }

CudaCompileResult CompileCudaPtx(const std::string&, const std::string& compute_arch) {
  throw Error(ErrorCode::kEnvironment,
              "cannot compile for " + compute_arch +
                  ": this beast was built without NVRTC (CUDA toolkit not found)");
}

std::string OldestNvrtcComputeArch() { return ""; }
std::string NvrtcVersion() { return ""; }

CudaCompileResult CompileCuda(const std::string&, const std::string& arch, const std::string&) {
  throw Error(ErrorCode::kEnvironment,
              "cannot compile for " + arch +
                  ": this beast was built without NVRTC (CUDA toolkit not found)");
}

#endif

}  // namespace beast::harness
