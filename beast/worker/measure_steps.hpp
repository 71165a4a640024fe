// The backend-neutral steps of measuring kernels in the device worker, shared
// by OpenCL and CUDA: validating a built kernel on a poisoned output and
// timing it (MeasureInstance's tail), and the interleaved rounds that confirm
// a pair's winner. A backend supplies the calls; these decide what is a
// wrong result, a runtime error, how many samples, and when to stop.
#pragma once

#include <functional>
#include <vector>

#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/instance_measure.hpp"
#include "beast/worker/problem_data.hpp"
#include "harness/measure/launch.hpp"
#include "harness/measure/timing.hpp"

namespace beast {

// What a backend does for a built kernel on a problem's buffers. poison and
// read throw only for a device that stopped working.
struct KernelCalls {
  std::function<void()> poison_output;            // every output byte 0xFF (NaN)
  std::function<harness::LaunchResult()> launch;  // one launch, waited for and timed
  // The config's prepare stages (StagedKernel::Prepare), run before the
  // first launch; null when it has none.
  std::function<harness::LaunchResult()> prepare;
  // data.output_count elements of data.dtype into `host`
  std::function<void(void* host)> read_output;
};

// Runs the prepare stages when there are (a failure: runtime_error), then
// poisons the output, launches once and validates the result against the
// reference (wrong_result with where and by how much, or runtime_error when
// the launch fails), then times the kernel with harness::Benchmark(plan).
// Fills out's status, max_error, samples, median, spread, error_text and
// the first launch's and the benchmark's wall clock; prepare_ms is the
// prepare stages' time (the faster of a run before validation and one after
// the timing, when PoCL no longer generates code). A kernel that computes
// Winograd F(m x m, 3 x 3) (winograd_tile = m) is checked against that
// algorithm's error bound, any other against the direct sum's.
void ValidateAndTime(const KernelCalls& calls, const ProblemData& data,
                     const harness::BenchmarkPlan& plan, Outcome* out, int winograd_tile = 0);

// A kernel that ran broke its problem's seal (problem_seal.hpp: `broken`
// says what it wrote where it must not): whatever its output, its outcome
// is a wrong result, and its timings are dropped.
void MarkBroken(const std::string& broken, Outcome* out);

// Runs a confirmation candidate's prepare stages (StagedKernel) once, before
// the rounds time its launches; false, with the candidate's result a
// runtime_error saying why, when they fail.
template <typename Runner>
bool PrepareForRounds(Runner& runner, ConfirmResult* result) {
  if (!runner.has_prepare()) return true;
  harness::LaunchResult r = runner.Prepare();
  if (r.ok()) return true;
  result->status = Status::kRuntimeError;
  result->error_text = r.message;
  return false;
}

// Warm-up rounds, then rounds that launch every live candidate once in turn
// (A B C A B C ...) until each one's median is stable (plan.target_rel_ci,
// after min_reps rounds), max_reps rounds, or live candidates x max_seconds.
// launches[i] null: candidate i did not build (results[i] says why, and is
// left as it is). A failing launch stops its candidate (runtime_error) —
// unless `device_works` then says the device is lost (a fault is sticky on a
// GPU: every later launch would fail too): that candidate is `crashed` and
// the rounds end, the others keeping the samples they have.
void InterleavedRounds(const std::vector<std::function<harness::LaunchResult()>>& launches,
                       const harness::BenchmarkPlan& plan,
                       const std::function<bool()>& device_works,
                       std::vector<ConfirmResult>* results);

}  // namespace beast
