// The device worker's OpenCL device (worker_device.hpp): kernels built with
// the platform's compiler through the program cache, CLBlast baselines, the
// OpenCL FMA peak, on one context whose problems' buffers are kept.
#include <map>
#include <memory>

#include "beast/problem/problem.hpp"
#include "beast/worker/baseline_measure.hpp"
#include "beast/worker/confirm_measure.hpp"
#include "beast/worker/problem_data.hpp"
#include "beast/worker/worker_device.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/opencl/opencl_bandwidth.hpp"
#include "harness/opencl/opencl_context.hpp"
#include "harness/opencl/opencl_peak_flops.hpp"

namespace beast {
namespace {

class OpenCLWorkerDevice : public WorkerDevice {
 public:
  OpenCLWorkerDevice(int device_index, const std::string& cache_dir) : context_(device_index) {
    if (!cache_dir.empty())
      context_.UseProgramCache(std::make_shared<harness::ProgramCache>(cache_dir));
  }

  const DeviceInfo& device() const override { return context_.device(); }

  Outcome Measure(const MeasureRequest& request, const OnBuilt& on_built) override {
    return MeasureInstance(context_, Problem(request.problem_key).device, request.source,
                           request.kernel_name, request.geometry, request.stages, request.plan,
                           on_built, request.winograd_tile);
  }

  std::vector<ConfirmResult> Confirm(const ConfirmRequest& request) override {
    return ConfirmInstances(context_, Problem(request.problem_key).device, request.candidates,
                            request.plan);
  }

  harness::BaselineResult Baseline(const BaselineRequest& request) override {
    return MeasureBaseline(context_, beast::Problem::Parse(request.problem_key),
                           Problem(request.problem_key).device, request.library, request.plan);
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
  };

  // Inputs and reference, made once per problem and shared by its kernels,
  // confirmations and baselines.
  Cached& Problem(const std::string& key) {
    std::unique_ptr<Cached>& cached = problems_[key];
    if (!cached) {
      auto fresh = std::make_unique<Cached>();
      fresh->data = MakeProblemData(beast::Problem::Parse(key));
      fresh->device = UploadProblem(context_, fresh->data);
      cached = std::move(fresh);
    }
    return *cached;
  }

  harness::OpenClContext context_;
  std::map<std::string, std::unique_ptr<Cached>> problems_;
};

}  // namespace

std::unique_ptr<WorkerDevice> OpenOpenCLWorkerDevice(int device_index,
                                                     const std::string& cache_dir) {
  return std::make_unique<OpenCLWorkerDevice>(device_index, cache_dir);
}

}  // namespace beast
