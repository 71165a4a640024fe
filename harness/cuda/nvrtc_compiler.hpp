// CUDA compilation with NVRTC: a rendered CUDA kernel to a cubin for one
// architecture (sm_XX), with the resources ptxas reports (registers, spills,
// stack, shared memory) for post-compile constraints and the database. Needs
// no GPU. A source that does not compile is data (ok=false, log kept).
#pragma once

#include <string>
#include <vector>

namespace beast::harness {

struct CudaResources {
  int registers = -1;  // per thread; -1 when ptxas did not say
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_bytes = 0;
  int shared_bytes = 0;  // static shared memory per block
};

struct CudaCompileResult {
  bool ok = false;
  // Not ok because the source does not compile (NVRTC_ERROR_COMPILATION):
  // the same source fails again. Any other failure (out of memory, an
  // internal error) may not, and is not kept in a program cache.
  bool rejected = false;
  std::string log;  // NVRTC's log, ptxas lines included
  double compile_ms = 0;
  std::string cubin;        // the binary when ok (CompileCuda)
  std::string ptx;          // the PTX text when ok (CompileCudaPtx)
  CudaResources resources;  // of kernel_name, parsed from the ptxas lines
};

// False when this build has no NVRTC (the CUDA toolkit was not found).
bool NvrtcAvailable();
// "13.0", or "" without NVRTC.
std::string NvrtcVersion();

// The NVRTC options CompileCuda uses for `arch`, one per element (the
// program cache keys builds by them).
std::vector<std::string> CudaCompileOptions(const std::string& arch);

// Compiles with CudaCompileOptions(arch). Throws Error(kEnvironment)
// when NVRTC is not available; every compiler complaint is data.
CudaCompileResult CompileCuda(const std::string& source, const std::string& arch,
                              const std::string& kernel_name);

// Compiles to PTX for a virtual architecture ("compute_90"), which the
// driver JIT-compiles for any GPU of that compute capability or newer (how
// an exported library runs on a GPU it has no cubin for). Throws like
// CompileCuda; every compiler complaint is data.
CudaCompileResult CompileCudaPtx(const std::string& source, const std::string& compute_arch);

// The compute capabilities this NVRTC compiles for (75, 80, ... for CUDA
// 13), ascending; empty without NVRTC.
std::vector<int> NvrtcSupportedArchs();

// The oldest virtual architecture this NVRTC can compile for ("compute_75"
// for CUDA 13), or "" without NVRTC.
std::string OldestNvrtcComputeArch();

// Parses ptxas -v output for one entry function (exposed for tests).
CudaResources ParsePtxasInfo(const std::string& log, const std::string& kernel_name);

}  // namespace beast::harness
