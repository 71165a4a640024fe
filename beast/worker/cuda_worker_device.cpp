// The device worker's CUDA GPU (worker_device.hpp): kernels compiled with
// NVRTC for the GPU's architecture through the program cache (the compile
// pool builds them ahead), loaded as cubins and timed with CUDA events,
// optionally from a cold L2; cuBLAS and cuDNN baselines; the CUDA FMA peak.
// The driver and the libraries are opened at run time: on a machine without
// them opening the device fails with one line, and nothing else changes.
#include <memory>
#include <optional>

#include "beast/core/error.hpp"
#include "beast/problem/problem.hpp"
#include "beast/worker/device_probe.hpp"
#include "beast/worker/measure_steps.hpp"
#include "beast/worker/problem_data.hpp"
#include "beast/worker/problem_seal.hpp"
#include "beast/worker/problem_shelf.hpp"
#include "beast/worker/staged_kernel.hpp"
#include "beast/worker/worker_device.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/cuda/cuda_build.hpp"
#include "harness/cuda/cuda_context.hpp"
#include "harness/cuda/cuda_kernel.hpp"
#include "harness/cuda/cuda_library_call.hpp"
#include "harness/cuda/cuda_peak_flops.hpp"
#include "harness/cuda/cuda_tensor_peak.hpp"

namespace beast {
namespace {

// The problem's buffers on the GPU, allocated once per problem.
struct CudaProblem {
  ProblemData data;
  harness::CudaOperands buffers;
  ProblemSeal seal;  // of the device inputs: a GPU kernel cannot reach the host's copy
  // The kernel arguments in beast's contract: (x, w, [b,] y) or (A, B, C).
  std::vector<harness::CudaKernelArg> KernelArgs() const {
    if (!data.bias.empty()) return {buffers.input0, buffers.input1, buffers.bias, buffers.output};
    return {buffers.input0, buffers.input1, buffers.output};
  }
};

CompiledResources ResourcesOf(const harness::CudaResources& r) {
  CompiledResources out;
  if (r.registers >= 0) out.registers = r.registers;
  out.spill_bytes = r.spill_store_bytes + r.spill_load_bytes;
  out.stack_bytes = r.stack_bytes;
  out.shared_bytes = r.shared_bytes;
  return out;
}

class CudaWorkerDevice : public WorkerDevice {
 public:
  CudaWorkerDevice(int device_index, const std::string& cache_dir) : context_(device_index) {
    if (!harness::NvrtcAvailable()) {
      throw Error(ErrorCode::kEnvironment, "cuda:" + std::to_string(device_index) +
                                               ": this beast was built without NVRTC (CUDA toolkit "
                                               "not found), so it cannot compile kernels");
    }
    if (!cache_dir.empty()) cache_ = std::make_unique<harness::ProgramCache>(cache_dir);
  }

  const DeviceInfo& device() const override { return context_.device(); }

  void Prepare(const std::string& problem_key, int winograd_tile) override {
    std::string why;  // a problem the GPU cannot hold: Measure says so
    if (CudaProblem* held = Held(problem_key, &why))
      PrepareWinogradScale(held->data, winograd_tile);
  }

  Outcome Measure(const MeasureRequest& request, const OnBuilt& on_built) override {
    Outcome out;
    CudaProblem* held = Held(request.problem_key, &out.error_text);
    if (!held) {
      out.status = Status::kRuntimeError;
      return out;
    }
    CudaProblem& problem = *held;
    harness::CudaBuild build = Build(request.source, request.kernel_name);
    out.compile_ms = build.compiled.compile_ms;
    out.from_cache = build.from_cache;
    if (!build.compiled.ok) {
      out.status = Status::kCompileError;
      out.build_log = build.compiled.log;
      out.error_text = "NVRTC failed for " + context_.device().arch + " (build log kept)";
      return out;
    }
    out.build_log = build.compiled.log;  // ptxas's report of the resources
    out.resources = ResourcesOf(build.compiled.resources);
    std::optional<harness::CudaBuffer> workspace;
    if (std::optional<std::string> why = AllocateWorkspace(context_, request.stages, &workspace)) {
      out.status = Status::kRuntimeError;
      out.error_text = *why;
      return out;
    }
    StagedKernel<harness::CudaKernel> kernel(
        request.kernel_name, request.stages,
        Maker(build.compiled.cubin, problem, workspace ? &*workspace : nullptr));
    if (!kernel.ok()) {
      out.status = Status::kRuntimeError;
      out.error_text = kernel.message();
      return out;
    }
    if (on_built) {
      if (std::optional<std::string> why = on_built(build.compiled.compile_ms, out.resources)) {
        out.status = Status::kPrunedAfterCompile;
        out.error_text = *why;
        return out;
      }
    }
    const bool flush = request.plan.flush_cache;
    KernelCalls calls = CallsFor(problem, [&] { return kernel.Launch(request.geometry, flush); });
    if (kernel.has_prepare()) calls.prepare = [&] { return kernel.Prepare(); };
    ValidateAndTime(calls, problem.data, request.plan, &out, request.winograd_tile);
    const std::string broken = Broken(request.problem_key, problem);
    if (!broken.empty()) MarkBroken(broken, &out);
    return out;
  }

  std::vector<ConfirmResult> Confirm(const ConfirmRequest& request) override {
    std::vector<ConfirmResult> results(request.candidates.size());
    std::string why;
    CudaProblem* held = Held(request.problem_key, &why);
    if (!held) {
      for (ConfirmResult& r : results) {
        r.status = Status::kRuntimeError;
        r.error_text = why;
      }
      return results;
    }
    CudaProblem& problem = *held;
    std::vector<std::unique_ptr<StagedKernel<harness::CudaKernel>>> kernels(
        request.candidates.size());
    std::vector<std::optional<harness::CudaBuffer>> workspaces(request.candidates.size());
    std::vector<std::function<harness::LaunchResult()>> launches(request.candidates.size());
    for (size_t i = 0; i < request.candidates.size(); ++i) {
      const ConfirmCandidate& c = request.candidates[i];
      harness::CudaBuild build = Build(c.source, c.kernel_name);
      if (!build.compiled.ok) {
        results[i].status = Status::kCompileError;
        results[i].error_text = "NVRTC failed: " + build.compiled.log;
        continue;
      }
      if (std::optional<std::string> why = AllocateWorkspace(context_, c.stages, &workspaces[i])) {
        results[i].status = Status::kRuntimeError;
        results[i].error_text = *why;
        continue;
      }
      kernels[i] = std::make_unique<StagedKernel<harness::CudaKernel>>(
          c.kernel_name, c.stages,
          Maker(build.compiled.cubin, problem, workspaces[i] ? &*workspaces[i] : nullptr));
      if (!kernels[i]->ok()) {
        results[i].status = Status::kRuntimeError;
        results[i].error_text = kernels[i]->message();
        continue;
      }
      if (!PrepareForRounds(*kernels[i], &results[i])) continue;
      const bool flush = request.plan.flush_cache;
      launches[i] = [&, i, flush] {
        return kernels[i]->Launch(request.candidates[i].geometry, flush);
      };
    }
    InterleavedRounds(
        launches, request.plan, [&] { return ContextWorks(); }, &results);
    Broken(request.problem_key, problem);
    return results;
  }

  harness::BaselineResult Baseline(const BaselineRequest& request) override {
    const beast::Problem parsed = beast::Problem::Parse(request.problem_key);
    harness::BaselineResult out;
    CudaProblem* held = Held(request.problem_key, &out.error_text);
    if (!held) {
      out.status = Status::kRuntimeError;
      return out;
    }
    CudaProblem& problem = *held;
    std::unique_ptr<harness::CudaLibraryCall> call;
    if (request.library == "cublas") {
      out.routine = harness::CublasRoutineFor(parsed.dtype());
      call = harness::CudaLibraryCall::Cublas(context_, parsed, problem.buffers);
    } else if (request.library == "cudnn") {
      out.routine = harness::kCudnnRoutine;
      call = harness::CudaLibraryCall::Cudnn(context_, parsed, problem.buffers);
    } else {
      out.status = Status::kUnsupported;
      out.error_text =
          "\"" + request.library + "\" is no baseline library of CUDA devices (cublas, cudnn)";
      return out;
    }
    if (!call->why_not().empty()) {
      out.status = call->status();
      out.error_text = call->why_not();
      return out;
    }
    out.detail = call->detail();
    Outcome measured;
    KernelCalls calls = CallsFor(problem, [&] {
      if (request.plan.flush_cache) {
        try {
          context_.FlushL2();
        } catch (const Error& e) {
          harness::LaunchResult failed;
          failed.message = e.what();
          return failed;
        }
      }
      return call->Run();
    });
    ValidateAndTime(calls, problem.data, request.plan, &measured);
    out.status = measured.status;
    out.samples_ms = measured.samples_ms;
    out.median_ms = measured.median_ms;
    out.spread = measured.spread;
    out.max_error = measured.max_error;
    out.error_text = measured.error_text;
    out.first_call_ms = measured.first_launch_seconds * 1000.0;
    Broken(request.problem_key, problem);
    return out;
  }

  harness::PeakFlopsResult Peak(const PeakRequest& request) override {
    harness::PeakFlopsResult peak = harness::MeasureCudaPeakFlops(context_, request.plan);
    // The driver reports the memory clock and bus width (the spec's
    // bandwidth, DeviceLimits::bandwidth_gbs); a CUDA STREAM kernel is not
    // written yet.
    peak.bandwidth.error = "no bandwidth microbenchmark for CUDA yet (the spec's is used)";
    peak.fp64.error = "no fp64 peak microbenchmark for CUDA yet";
    for (int input = 0; input < harness::kTensorInputs; ++input) {
      if (request.tensor_inputs & (1 << input)) {
        peak.tensor[input] = harness::MeasureCudaTensorPeak(
            context_, request.plan, static_cast<harness::TensorInput>(input));
      } else {
        peak.tensor[input].error =
            std::string("not measured: the run has no tensor-core pair on a ") +
            (input == harness::kTensorTf32 ? "math=tf32" : harness::TensorInputName(input)) +
            " problem";
      }
    }
    return peak;
  }

  // A fresh allocation, fill and read: a lost context fails them, while a
  // problem too large for the GPU's memory does not make it look lost.
  bool StillWorks(const std::string&) override { return ContextWorks(); }
  bool DeviceWorks() override { return ContextWorks(); }

 private:
  // The problem's buffers, or null with *why when the GPU cannot hold them
  // (a runtime error of this request); a lost context throws as before.
  // Other problems kept on the GPU make room first: they only save time.
  // A problem that did not fit is remembered until another is held, so the
  // request after Prepare does not make its reference again (inside the
  // config's time limit).
  CudaProblem* Held(const std::string& key, std::string* why) {
    if (key == unfit_key_) {
      *why = unfit_why_;
      return nullptr;
    }
    for (int attempt = 0;; ++attempt) {
      try {
        CudaProblem* held = &Problem(key);
        unfit_key_.clear();
        return held;
      } catch (const Error& e) {
        problems_.Drop(key);
        if (!ContextWorks()) throw;
        if (attempt == 0 && problems_.size() > 0) {
          problems_.Clear();
          continue;
        }
        *why = std::string("the problem's buffers do not fit: ") + e.what();
        unfit_key_ = key;
        unfit_why_ = *why;
        return nullptr;
      }
    }
  }

  bool ContextWorks() { return ContextAnswers(context_); }

  // Kernels of `cubin` bound to the problem's buffers and the workspace.
  StagedKernel<harness::CudaKernel>::Make Maker(const std::string& cubin, CudaProblem& problem,
                                                const harness::CudaBuffer* workspace) {
    std::vector<harness::CudaKernelArg> args =
        WithWorkspace<harness::CudaKernelArg>(problem.KernelArgs(), workspace);
    return [this, &cubin, args](const std::string& name) {
      return std::make_unique<harness::CudaKernel>(context_, cubin, name, args);
    };
  }

  harness::CudaBuild Build(const std::string& source, const std::string& kernel_name) {
    return harness::BuildCudaThroughCache(cache_.get(), source, context_.device().arch,
                                          kernel_name);
  }

  KernelCalls CallsFor(CudaProblem& problem, std::function<harness::LaunchResult()> launch) {
    KernelCalls calls;
    calls.poison_output = [&] { context_.Fill(problem.buffers.output, 0xFF); };
    calls.launch = std::move(launch);
    calls.read_output = [&](void* host) {
      context_.Read(problem.buffers.output, host,
                    problem.data.output_count * ElementBytes(problem.data));
    };
    return calls;
  }

  // Inputs and reference, made once per problem and shared by its kernels,
  // confirmations and baselines.
  CudaProblem& Problem(const std::string& key) {
    return problems_.Get(key, [&] {
      auto fresh = std::make_unique<CudaProblem>();
      fresh->data = MakeProblemData(beast::Problem::Parse(key));
      const ProblemData& d = fresh->data;
      harness::CudaOperands& b = fresh->buffers;
      b.input0 = UploadElements(context_, d, d.input0);
      b.input1 = UploadElements(context_, d, d.input1);
      b.output = context_.Allocate(d.output_count * ElementBytes(d));
      if (!d.bias.empty()) b.bias = UploadElements(context_, d, d.bias);
      fresh->seal = SealOf(d, /*check_host=*/false);
      return fresh;
    });
  }

  // What the last kernels wrote into the problem's inputs ("" for nothing).
  std::string Broken(const std::string& key, const CudaProblem& problem) {
    const harness::CudaOperands& b = problem.buffers;
    return CheckSeal(
        problem.data, problem.seal,
        [&](size_t i, void* host, size_t bytes) {
          context_.Read(i == 0 ? b.input0 : i == 1 ? b.input1 : b.bias, host, bytes);
        },
        [&] { problems_.Drop(key); });
  }

  harness::CudaContext context_;
  std::unique_ptr<harness::ProgramCache> cache_;
  std::string unfit_key_, unfit_why_;  // the last problem the GPU could not hold
  // Every problem it was given, while they fit (ProblemShelfBytes).
  ProblemShelf<CudaProblem> problems_{SIZE_MAX,
                                      ProblemShelfBytes(context_.device().limits.global_mem_bytes),
                                      [](const CudaProblem& p) { return KeptBytes(p.data); }};
};

}  // namespace

std::unique_ptr<WorkerDevice> OpenCudaWorkerDevice(int device_index, const std::string& cache_dir) {
  return std::make_unique<CudaWorkerDevice>(device_index, cache_dir);
}

}  // namespace beast
