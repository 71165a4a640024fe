// A run's roofline in its summary (tune_peak.hpp).
#include "beast/tuner/tune_peak.hpp"

#include <cstdio>

#include "beast/problem/problem_buffers.hpp"
#include "beast/tuner/tune_baselines.hpp"

namespace beast {

void ShowPeak(const harness::PeakFlopsResult& peak, const DeviceInfo& device, bool progress,
              TuneSummary* summary) {
  summary->peak_method = peak.method;
  summary->peak_variant = peak.variant;
  summary->peak_error = peak.error;
  if (peak.ok) summary->peak_gflops = peak.gflops;
  if (peak.fp64.ok) summary->peak_gflops_f64 = peak.fp64.gflops;
  summary->peak_f64_variant = peak.fp64.variant;
  summary->peak_f64_error = peak.fp64.error;
  for (int i = 0; i < harness::kTensorInputs; ++i) {
    if (peak.tensor[i].ok) summary->peak_gflops_tensor[i] = peak.tensor[i].gflops;
    summary->peak_tensor_variant[i] = peak.tensor[i].variant;
    summary->peak_tensor_error[i] = peak.tensor[i].error;
  }
  summary->bandwidth_method = peak.bandwidth.method;
  summary->bandwidth_variant = peak.bandwidth.variant;
  summary->bandwidth_error = peak.bandwidth.error;
  if (peak.bandwidth.ok) summary->bandwidth_gbs = peak.bandwidth.gbs;
  if (!progress) return;
  if (peak.bandwidth.ok)
    std::fprintf(stderr, "memory bandwidth %.1f GB/s on %s (best: %s)\n", peak.bandwidth.gbs,
                 device.Id().c_str(), peak.bandwidth.variant.c_str());
  if (peak.ok) {
    std::fprintf(stderr, "peak %.1f GFLOP/s fp32 on %s, measured by %s (best: %s)\n", peak.gflops,
                 device.Id().c_str(), peak.method.c_str(), peak.variant.c_str());
  } else {
    std::fprintf(stderr, "peak FLOP/s unknown: %s\n", peak.error.c_str());
  }
  if (peak.fp64.ok)
    std::fprintf(stderr, "peak %.1f GFLOP/s fp64 on %s (best: %s)\n", peak.fp64.gflops,
                 device.Id().c_str(), peak.fp64.variant.c_str());
  for (int i = 0; i < harness::kTensorInputs; ++i) {
    const harness::PeakFlopsResult::OtherPeak& t = peak.tensor[i];
    if (t.ok) {
      std::fprintf(stderr, "peak %.1f GFLOP/s %s tensor cores (mma.sync) on %s (best: %s)\n",
                   t.gflops, harness::TensorInputName(i), device.Id().c_str(), t.variant.c_str());
    } else if (!t.error.empty() && t.error.rfind("not measured", 0) != 0) {
      std::fprintf(stderr, "peak of the %s tensor cores unknown: %s\n", harness::TensorInputName(i),
                   t.error.c_str());
    }
  }
}

int TensorInputOf(const Problem& problem) {
  if (problem.dtype() == DType::kF16) return harness::kTensorF16;
  if (problem.dtype() == DType::kBF16) return harness::kTensorBf16;
  if (problem.dtype() == DType::kF32 && problem.tf32()) return harness::kTensorTf32;
  return -1;
}

void AddBaselinesAndPeak(results_db::Store& store, int64_t device_id, const DeviceInfo& device,
                         const std::string& library, TuneSummary* summary) {
  const std::string shown = !library.empty()                   ? library
                            : device.backend == Backend::kCuda ? std::string(kBaselineNvidia)
                                                               : std::string(kBaselineClblast);
  for (PairSummary& p : summary->pairs) {
    const Problem problem = Problem::Parse(p.problem_key);
    const std::string shown_library = BaselineFor(shown, problem).library;
    if (auto b = FastestBaseline(store, device_id, p.problem_key, shown_library)) {
      p.baseline_library = b->library;
      p.baseline_routine = b->routine;
      p.baseline_ms = b->median_ms.value_or(0);
    }
    PlaceUnderRoof(problem, *summary, &p);
  }
}

void PlaceUnderRoof(const Problem& problem, const TuneSummary& summary, PairSummary* p) {
  // The roof of the arithmetic the kernel does: fp64's for f64, fp32's for
  // f32 and for f16/bf16 (storage types summed in float), the tensor cores'
  // for the mma input type of a tensor-core template (they run many times
  // the FMA rate: an H200's bf16 GEMM winner reached 175% of its fp32
  // peak); unknown, no fraction and no roofline built on it. Where the
  // tensor cores' rate was not measured, a tensor-core pair gets no
  // fraction but keeps the memory roof (below the FMA peak, it is below
  // theirs too).
  if (!p->has_best) return;
  const int tensor = p->tensor_cores ? TensorInputOf(problem) : -1;
  const double tensor_peak = tensor >= 0 ? summary.peak_gflops_tensor[tensor] : 0;
  const double peak = tensor_peak > 0                  ? tensor_peak
                      : problem.dtype() == DType::kF64 ? summary.peak_gflops_f64
                                                       : summary.peak_gflops;
  if (peak <= 0) return;
  if (!p->tensor_cores || tensor_peak > 0) p->fraction_of_peak = p->best_gflops / peak;
  if (summary.bandwidth_gbs > 0) {
    // The roofline's memory side: every buffer moved once (in the dtype's
    // bytes), at the bandwidth.
    const double bytes = static_cast<double>(ReferenceBytesMoved(problem));
    const double bound = summary.bandwidth_gbs * problem.Flops() / bytes;
    if (bound < peak) {
      p->bandwidth_bound_gflops = bound;
      p->fraction_of_bandwidth_bound = p->best_gflops / bound;
    }
  }
}

}  // namespace beast
