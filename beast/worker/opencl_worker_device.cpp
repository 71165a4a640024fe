// The device worker's OpenCL device (worker_device.hpp): kernels built with
// the platform's compiler through the program cache, CLBlast baselines, the
// OpenCL FMA peak, on one context whose recent problems' buffers are kept
// (and checked after each kernel: problem_seal.hpp).
#include <memory>

#include "beast/problem/problem.hpp"
#include "beast/worker/baseline_measure.hpp"
#include "beast/worker/confirm_measure.hpp"
#include "beast/worker/device_probe.hpp"
#include "beast/worker/measure_steps.hpp"
#include "beast/worker/problem_data.hpp"
#include "beast/worker/problem_seal.hpp"
#include "beast/worker/problem_shelf.hpp"
#include "beast/worker/worker_device.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/opencl/opencl_bandwidth.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "harness/opencl/opencl_peak_flops.hpp"

namespace beast {
namespace {

class OpenCLWorkerDevice : public WorkerDevice {
 public:
  OpenCLWorkerDevice(int device_index, const std::string& cache_dir)
      : context_(device_index), cpu_(harness::IsCpuOpenClDevice(device_index)) {
    if (!cache_dir.empty())
      context_.UseProgramCache(std::make_shared<harness::ProgramCache>(cache_dir));
  }

  const DeviceInfo& device() const override { return context_.device(); }

  void Prepare(const std::string& problem_key, int winograd_tile) override {
    PrepareWinogradScale(Problem(problem_key).data, winograd_tile);
  }

  Outcome Measure(const MeasureRequest& request, const OnBuilt& on_built) override {
    Cached& problem = Problem(request.problem_key);
    Outcome out = MeasureInstance(context_, problem.device, request.source, request.kernel_name,
                                  request.geometry, request.stages, request.plan, on_built,
                                  request.winograd_tile);
    if (out.status != Status::kCompileError && out.status != Status::kPrunedAfterCompile) {
      const std::string broken = Broken(request.problem_key, problem);
      if (!broken.empty()) MarkBroken(broken, &out);
    }
    return out;
  }

  std::vector<ConfirmResult> Confirm(const ConfirmRequest& request) override {
    Cached& problem = Problem(request.problem_key);
    std::vector<ConfirmResult> results =
        ConfirmInstances(context_, problem.device, request.candidates, request.plan);
    Broken(request.problem_key, problem);
    return results;
  }

  harness::BaselineResult Baseline(const BaselineRequest& request) override {
    Cached& problem = Problem(request.problem_key);
    harness::BaselineResult result =
        MeasureBaseline(context_, beast::Problem::Parse(request.problem_key), problem.device,
                        request.library, request.plan);
    Broken(request.problem_key, problem);
    return result;
  }

  harness::PeakFlopsResult Peak(const PeakRequest& request) override {
    const harness::BenchmarkPlan& plan = request.plan;
    harness::PeakFlopsResult peak = harness::MeasureOpenClPeakFlops(context_, plan);
    peak.bandwidth = harness::MeasureOpenClBandwidth(context_, plan);
    if (request.fp64) {
      const harness::PeakFlopsResult fp64 =
          harness::MeasureOpenClPeakFlops(context_, plan, /*f64=*/true);
      peak.fp64 = {fp64.ok, fp64.gflops, fp64.variant, fp64.error};
    } else {
      peak.fp64.error = "not measured: the run has no f64 problem";
    }
    for (harness::PeakFlopsResult::OtherPeak& tensor : peak.tensor)
      tensor.error = "OpenCL has no tensor-core instruction beast's templates use";
    return peak;
  }

  bool DeviceWorks() override { return ContextAnswers(context_); }

  bool StillWorks(const std::string& problem_key) override {
    try {
      const DeviceProblem& problem = Problem(problem_key).device;
      float probe = 0;
      context_.Fill(problem.output, 0xFF);
      context_.Read(problem.output, &probe, sizeof probe);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

 private:
  struct Cached {
    ProblemData data;
    DeviceProblem device;
    ProblemSeal seal;
  };

  // Inputs and reference, made once per problem and shared by its kernels,
  // confirmations and baselines.
  Cached& Problem(const std::string& key) {
    return problems_.Get(key, [&] {
      auto fresh = std::make_unique<Cached>();
      fresh->data = MakeProblemData(beast::Problem::Parse(key));
      fresh->device = UploadProblem(context_, fresh->data);
      // On a CPU device a kernel runs in this process: it can reach the host's copy too.
      fresh->seal = SealOf(fresh->data, cpu_);
      return fresh;
    });
  }

  // What the last kernels broke of the problem's seal ("" for nothing).
  std::string Broken(const std::string& key, const Cached& problem) {
    const DeviceProblem& d = problem.device;
    return CheckSeal(
        problem.data, problem.seal,
        [&](size_t i, void* host, size_t bytes) {
          context_.Read(i == 0 ? d.input0 : i == 1 ? d.input1 : d.bias, host, bytes);
        },
        [&] { problems_.Drop(key); });
  }

  harness::OpenClContext context_;
  bool cpu_;
  // Every problem it was given, while they fit (ProblemShelfBytes).
  ProblemShelf<Cached> problems_{SIZE_MAX,
                                 ProblemShelfBytes(context_.device().limits.global_mem_bytes),
                                 [](const Cached& p) { return KeptBytes(p.data); }};
};

}  // namespace

std::unique_ptr<WorkerDevice> OpenOpenCLWorkerDevice(int device_index,
                                                     const std::string& cache_dir) {
  return std::make_unique<OpenCLWorkerDevice>(device_index, cache_dir);
}

}  // namespace beast
