// The gate of CUDA timings (harness/cuda_gate.hpp): its source, and its
// launch on a context's stream (CudaContext::Impl::EnqueueGate), compiled with
// NVRTC for the context's GPU on first use.
#include "harness/cuda/cuda_gate.hpp"

#include "harness/cuda/cuda_context_impl.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast::harness {

std::string CudaGateKernelSource() {
  return R"(extern "C" __global__ void beast_gate(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}
)";
}

void CudaContext::Impl::EnqueueGate() {
  if (!gate_tried) {
    gate_tried = true;  // once: a gate that cannot be made leaves the timings as they were
    if (!NvrtcAvailable()) {
      gate_error = "no NVRTC to compile it";
      return;
    }
    CudaCompileResult compiled = CompileCuda(CudaGateKernelSource(), info.arch, "beast_gate");
    if (!compiled.ok) {
      gate_error = "NVRTC failed: " + compiled.log;
      return;
    }
    cuda::Result r = api->ModuleLoadData(&gate_module, compiled.cubin.data());
    if (r == cuda::kSuccess) r = api->ModuleGetFunction(&gate, gate_module, "beast_gate");
    if (r != cuda::kSuccess) {
      gate_error = "it does not load: " + cuda::ErrorText(*api, r);
      gate = nullptr;
      return;
    }
  }
  if (gate == nullptr) return;
  unsigned long long ns = kCudaGateNanoseconds;
  void* params[] = {&ns};
  cuda::Result r = api->LaunchKernel(gate, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr);
  if (r != cuda::kSuccess) {
    gate_error = "its launch failed: " + cuda::ErrorText(*api, r);
    gate = nullptr;  // not tried again: the timings go on without it, and say so
  }
}

}  // namespace beast::harness
