// Keeping the fastest variant of a peak microbenchmark (peak_flops.hpp).
#include "harness/measure/peak_flops.hpp"

#include "harness/measure/timing.hpp"

namespace beast::harness {

void KeepFasterVariant(const std::vector<double>& samples, double flops, const std::string& variant,
                       PeakFlopsResult* best) {
  SampleStats stats = Summarize(samples);
  if (!(stats.median > 0)) return;
  const double gflops = flops / (stats.median * 1e6);
  if (best->ok && gflops <= best->gflops) return;
  best->ok = true;
  best->gflops = gflops;
  best->median_ms = stats.median;
  best->spread = stats.spread;
  best->variant = variant;
}

const char* TensorInputName(int input) {
  switch (input) {
    case kTensorF16:
      return "f16";
    case kTensorBf16:
      return "bf16";
    default:
      return "tf32";
  }
}

}  // namespace beast::harness
