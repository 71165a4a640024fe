// Validation, timing and interleaved rounds, whatever the backend
// (measure_steps.hpp).
#include "beast/worker/measure_steps.hpp"

#include <algorithm>
#include <chrono>

#include "beast/core/error.hpp"
#include "harness/measure/validation.hpp"

namespace beast {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The scale an output is checked against: the reference over absolute
// values and the terms per output of the direct sum, or of a Winograd
// kernel's bound (harness/measure/winograd_bound.hpp).
struct Scale {
  const std::vector<float>* abs;
  const std::vector<double>* abs64;
  int64_t length;
};

Scale ScaleFor(const ProblemData& data, int winograd_tile) {
  if (winograd_tile <= 0)
    return {&data.abs_reference, &data.abs_reference64, data.reduction_length};
  const ProblemData::WinogradScale& w = WinogradScaleOf(data, winograd_tile);
  return {&w.abs, &w.abs64, w.reduction_length};
}

// Records a validation's verdict in *out: its max error, and when it failed
// wrong_result with where; true when it passed.
template <typename T>
bool Verdict(const harness::ValidationResult& v, const std::vector<T>& y, const T* ref,
             Outcome* out) {
  out->max_error = v.max_error;
  if (v.ok) return true;
  out->status = Status::kWrongResult;
  out->error_text = harness::DescribeWrongResult(v, y.data(), ref, y.size());
  return false;
}

// Reads the output in the problem's element type and checks it against the
// reference of that precision.
template <typename T>
bool ValidateAs(const KernelCalls& calls, const ProblemData& data, const std::vector<T>& ref,
                const std::vector<T>& abs_ref, int64_t length, Outcome* out) {
  std::vector<T> y(data.output_count);
  calls.read_output(y.data());
  return Verdict(harness::Validate(y.data(), ref.data(), abs_ref.data(), y.size(), length), y,
                 ref.data(), out);
}

// A 16-bit output, read as its bits, converted to float and checked with the
// rounding of its storage type.
bool ValidateStored16(const KernelCalls& calls, const ProblemData& data, const Scale& scale,
                      Outcome* out) {
  std::vector<uint16_t> bits(data.output_count);
  calls.read_output(bits.data());
  const std::vector<float> y = StoredElementsAsFloat(data.dtype, bits);
  return Verdict(
      harness::Validate(y.data(), data.reference.data(), scale.abs->data(), y.size(), scale.length,
                        data.dtype == DType::kF16 ? harness::kStoredF16 : harness::kStoredBf16),
      y, data.reference.data(), out);
}

// An f32 output of a math=tf32 problem: its products may have rounded their
// inputs to TF32.
bool ValidateTf32(const KernelCalls& calls, const ProblemData& data, const Scale& scale,
                  Outcome* out) {
  std::vector<float> y(data.output_count);
  calls.read_output(y.data());
  return Verdict(harness::Validate(y.data(), data.reference.data(), scale.abs->data(), y.size(),
                                   scale.length, harness::kTf32Inputs),
                 y, data.reference.data(), out);
}

bool ValidateOutput(const KernelCalls& calls, const ProblemData& data, int winograd_tile,
                    Outcome* out) {
  const Scale scale = ScaleFor(data, winograd_tile);
  if (data.dtype == DType::kF64)
    return ValidateAs(calls, data, data.reference64, *scale.abs64, scale.length, out);
  if (data.dtype == DType::kF16 || data.dtype == DType::kBF16)
    return ValidateStored16(calls, data, scale, out);
  if (data.tf32) return ValidateTf32(calls, data, scale, out);
  return ValidateAs(calls, data, data.reference, *scale.abs, scale.length, out);
}

}  // namespace

void MarkBroken(const std::string& broken, Outcome* out) {
  out->error_text = broken + (out->error_text.empty() ? "" : "; " + out->error_text);
  out->status = Status::kWrongResult;
  out->samples_ms.clear();
  out->median_ms.reset();
  out->spread.reset();
}

void ValidateAndTime(const KernelCalls& calls, const ProblemData& data,
                     const harness::BenchmarkPlan& plan, Outcome* out, int winograd_tile) {
  // What the prepare stages leave in the workspace serves every launch
  // below, as a prepared weight buffer serves every call of the exported
  // library: the validated launch is the one that is timed.
  if (calls.prepare) {
    harness::LaunchResult r = calls.prepare();
    if (!r.ok()) {
      out->status = Status::kRuntimeError;
      out->error_text = r.message;
      return;
    }
    out->prepare_ms = r.kernel_ms;
  }
  // Poison the output (0xFF bytes are NaN) so an element the kernel never
  // writes fails validation instead of passing on a stale value.
  calls.poison_output();
  auto first_start = std::chrono::steady_clock::now();
  harness::LaunchResult first = calls.launch();
  out->first_launch_seconds = SecondsSince(first_start);
  if (!first.ok()) {
    out->status = Status::kRuntimeError;
    out->error_text = first.message;
    return;
  }
  try {
    if (!ValidateOutput(calls, data, winograd_tile, out)) return;
  } catch (const Error& e) {
    // A space that declares Winograd for a problem it cannot compute.
    out->status = Status::kRuntimeError;
    out->error_text = e.what();
    return;
  }
  std::string failure;
  auto start = std::chrono::steady_clock::now();
  out->samples_ms = harness::BenchmarkLaunches(calls.launch, plan, &failure);
  out->benchmark_seconds = SecondsSince(start);
  if (!failure.empty()) {
    out->status = Status::kRuntimeError;
    out->error_text = failure;
    return;
  }
  // Once more now that nothing is generated on the fly: the faster of the two
  // is prepare_ms. The validated, timed launch stands even if this one fails.
  if (calls.prepare) {
    harness::LaunchResult again = calls.prepare();
    if (again.ok()) out->prepare_ms = std::min(*out->prepare_ms, again.kernel_ms);
  }
  harness::SampleStats stats = harness::Summarize(out->samples_ms);
  out->median_ms = stats.median;
  out->spread = stats.spread;
}

void InterleavedRounds(const std::vector<std::function<harness::LaunchResult()>>& launches,
                       const harness::BenchmarkPlan& plan,
                       const std::function<bool()>& device_works,
                       std::vector<ConfirmResult>* results) {
  std::vector<char> live(launches.size());
  for (size_t i = 0; i < launches.size(); ++i) live[i] = launches[i] != nullptr;
  // One launch of candidate i; a failure stops i, a lost device all.
  auto launch = [&](size_t i, bool timed) {
    harness::LaunchResult r = launches[i]();
    if (!r.ok()) {
      const bool lost = !device_works();
      (*results)[i].status = lost ? Status::kCrashed : Status::kRuntimeError;
      (*results)[i].error_text = (lost ? "the device context was lost: " : "") + r.message;
      if (lost) std::fill(live.begin(), live.end(), 0);
      live[i] = 0;
      return;
    }
    if (timed) (*results)[i].samples_ms.push_back(r.kernel_ms);
  };
  auto live_count = [&] {
    size_t n = 0;
    for (char l : live) n += l != 0;
    return n;
  };
  for (int w = 0; w < plan.warmup; ++w) {
    for (size_t i = 0; i < launches.size(); ++i)
      if (live[i]) launch(i, false);
  }
  const auto start = std::chrono::steady_clock::now();
  for (int round = 1; round <= plan.max_reps && live_count() > 0; ++round) {
    for (size_t i = 0; i < launches.size(); ++i)
      if (live[i]) launch(i, true);
    if (round < plan.min_reps) continue;
    bool stable = true;
    for (size_t i = 0; i < launches.size(); ++i) {
      if (live[i])
        stable = stable &&
                 harness::MedianRelativeHalfWidth((*results)[i].samples_ms) <= plan.target_rel_ci;
    }
    if (stable || SecondsSince(start) >= plan.max_seconds * static_cast<double>(live_count()))
      break;
  }
}

}  // namespace beast
