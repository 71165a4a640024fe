// The loop the CUDA peak microbenchmarks share (cuda_peak_variant.hpp).
#include "harness/cuda/cuda_peak_variant.hpp"

#include <algorithm>
#include <memory>

#include "harness/cuda/nvrtc_compiler.hpp"

namespace beast::harness {

PeakFlopsResult MeasureCudaPeakVariants(CudaContext& context, const BenchmarkPlan& plan,
                                        const std::vector<PeakVariant>& variants,
                                        const PeakKernel& kernel) {
  constexpr double kTargetLaunchMs = 10;
  PeakFlopsResult best;
  const DeviceInfo& device = context.device();
  const int sms = static_cast<int>(std::max<int64_t>(1, device.limits.compute_units));
  size_t most_threads = 0;
  for (const PeakVariant& v : variants)
    most_threads = std::max(most_threads, size_t{v.block} * v.blocks_per_sm * sms);
  CudaBuffer out = context.Allocate(most_threads * sizeof(float));
  std::string errors;
  auto note = [&errors](const std::string& what) { errors += (errors.empty() ? "" : "; ") + what; };
  for (const PeakVariant& v : variants) {
    const std::string name = "chains=" + std::to_string(v.chains) +
                             " block=" + std::to_string(v.block) +
                             " blocks=" + std::to_string(v.blocks_per_sm * sms);
    if (device.limits.max_work_group_size > 0 && v.block > device.limits.max_work_group_size)
      continue;
    CudaCompileResult compiled = CompileCuda(kernel.source(v.chains), device.arch, kernel.name);
    if (!compiled.ok) {
      note(name + ": NVRTC failed: " + compiled.log);
      continue;
    }
    LaunchGeometry geometry;
    geometry.dims = 1;
    geometry.local[0] = v.block;
    geometry.global[0] = size_t{v.block} * v.blocks_per_sm * sms;
    auto kernel_with = [&](int iterations) {
      return std::make_unique<CudaKernel>(context, compiled.cubin, kernel.name,
                                          kernel.args(out, iterations));
    };
    // The first launch loads the module: the second one is the probe's time.
    auto probe_kernel = kernel_with(kernel.probe_iterations);
    LaunchResult probe = probe_kernel->Launch(geometry);
    if (probe.ok()) probe = probe_kernel->Launch(geometry);
    if (!probe.ok()) {
      note(name + ": " + probe.message);
      continue;
    }
    const double scale = kTargetLaunchMs / std::max(probe.kernel_ms, 1e-3);
    const int iterations = static_cast<int>(
        std::clamp(kernel.probe_iterations * scale, kernel.min_iterations, kernel.max_iterations));
    auto timed = kernel_with(iterations);
    std::string failure;
    std::vector<double> samples =
        BenchmarkLaunches([&] { return timed->Launch(geometry); }, plan, &failure);
    if (!failure.empty() || samples.empty()) {
      note(name + ": " + (failure.empty() ? "no samples" : failure));
      continue;
    }
    KeepFasterVariant(samples, kernel.flops(v, iterations, static_cast<double>(geometry.global[0])),
                      name, &best);
  }
  if (!best.ok) best.error = errors.empty() ? "no variant fits the device" : errors;
  return best;
}

}  // namespace beast::harness
