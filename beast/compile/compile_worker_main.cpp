// The compile worker (`beast worker --compile`, started by the tuner's compile
// pool): opens the device, then builds each rendered instance it is sent into
// the program cache, so the device worker loads it instead of compiling. A
// compiler that crashes or hangs takes only this process with it; the pool
// leaves that config to the device worker, which records what happens.
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "beast/compile/compile_protocol.hpp"
#include "beast/compile/compile_worker.hpp"
#include "beast/core/error.hpp"
#include "beast/problem/problem.hpp"
#include "beast/worker/instance_measure.hpp"
#include "beast/worker/problem_data.hpp"
#include "beast/worker/problem_shelf.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "harness/cache/program_cache.hpp"
#include "harness/cuda/cuda_build.hpp"
#include "harness/opencl/opencl_cached_build.hpp"
#include "harness/opencl/opencl_context.hpp"

namespace beast {
namespace {

// A pool that stopped reading for this long is gone or stuck.
constexpr auto kReplyPatience = std::chrono::minutes(10);

bool Reply(int fd, const std::string& payload) {
  return WriteFrame(fd, payload, std::chrono::steady_clock::now() + kReplyPatience);
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The warm-up launch may use this much CPU time: the grace and JIT terms of
// the device worker's limit (worker_time_limit.hpp), since one work-group
// costs next to nothing beside the code generation.
constexpr double kWarmGraceSeconds = 3.0;
constexpr double kWarmJitFactor = 5.0;

// Ends this process (SIGPROF) once it used `seconds` of CPU time more: a
// kernel that never ends must not hold a pool worker; it is the device
// worker's to record. CPU time, not wall clock, because the pool stops this
// process while kernels are timed.
class CpuLimit {
 public:
  explicit CpuLimit(double seconds) {
    signal(SIGPROF, SIG_DFL);
    itimerval limit = {};
    limit.it_value.tv_sec = static_cast<time_t>(seconds);
    limit.it_value.tv_usec = static_cast<suseconds_t>((seconds - limit.it_value.tv_sec) * 1e6);
    setitimer(ITIMER_PROF, &limit, nullptr);
  }
  ~CpuLimit() {
    itimerval off = {};
    setitimer(ITIMER_PROF, &off, nullptr);
  }
  CpuLimit(const CpuLimit&) = delete;
  CpuLimit& operator=(const CpuLimit&) = delete;
};

// CPU time this process and the children it waited for (a compiler or
// linker a driver runs as a program of its own) have used, in milliseconds.
double ProcessCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  auto ms = [](const timeval& v) {
    return static_cast<double>(v.tv_sec) * 1e3 + static_cast<double>(v.tv_usec) / 1e3;
  };
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6 +
         ms(children.ru_utime) + ms(children.ru_stime);
}

struct WarmBuffers {
  ProblemData data;
  DeviceProblem device;
};

// One work-group of the kernel on zero inputs: PoCL generates the code for
// that work-group size now, and it goes into the binary stored next. Its
// result is of no interest; a launch that fails only means the binary is
// stored without that code.
void WarmLaunch(harness::OpenClContext& context, const WarmBuffers& buffers,
                const harness::OpenClProgram& program, const CompileRequest& request) {
  std::optional<harness::OpenClBuffer> workspace;
  if (AllocateWorkspace(context, request.stages, &workspace)) return;
  const StagedKernel<harness::OpenClKernel>::Make make =
      StageMaker(context, program, buffers.device, workspace);
  std::vector<std::pair<std::string, harness::LaunchGeometry>> kernels;
  for (const harness::StageLaunch& stage : request.stages.before)
    kernels.emplace_back(stage.kernel, stage.geometry);
  kernels.emplace_back(request.kernel_name, request.geometry);
  for (auto& [name, one_group] : kernels) {
    bool sized = true;
    for (int d = 0; d < one_group.dims && d < 3; ++d) {
      sized = sized && one_group.local[d] != 0;  // else the runtime picks the size at launch
      one_group.global[d] = one_group.local[d];
    }
    if (!sized) continue;
    std::unique_ptr<harness::OpenClKernel> runner = make(name);
    if (runner->ok()) runner->Launch(one_group);
  }
}

// A CUDA compile worker: NVRTC for `arch`, no device opened (NVRTC needs
// none), each instance compiled into the cache unless it is there.
int RunCudaCompileWorker(int fd, const std::string& cache_dir, const std::string& arch) {
  std::unique_ptr<harness::ProgramCache> cache;
  try {
    if (!harness::NvrtcAvailable())
      throw Error(ErrorCode::kEnvironment,
                  "this beast was built without NVRTC (CUDA toolkit not found)");
    cache = std::make_unique<harness::ProgramCache>(cache_dir);
  } catch (const std::exception& e) {
    Reply(fd, EncodeFatal(e.what()));
    return 1;
  }
  if (!Reply(fd, EncodeReady({kWorkerProtocolVersion, "nvrtc " + arch}))) return 0;
  std::string payload;
  while (ReadFrame(fd, &payload)) {
    CompileRequest request = DecodeCompile(payload);
    CompileReply reply;
    if (!cache->Load(harness::CudaKeyFor(request.source, arch))) {
      harness::CudaBuild build =
          harness::BuildCudaThroughCache(cache.get(), request.source, arch, request.kernel_name);
      reply.built = build.compiled.ok;
      reply.compile_ms = build.compiled.compile_ms;
      reply.result =
          build.stored ? CompileReply::Result::kCompiled : CompileReply::Result::kNotStored;
    }
    if (!Reply(fd, EncodeCompiled(reply))) return 0;  // the pool is gone
  }
  return 0;
}

}  // namespace

int RunCompileWorker(Backend backend, int device_index, int fd, const std::string& cache_dir,
                     const std::string& arch) {
  signal(SIGINT, SIG_IGN);  // Ctrl-C is the tuner's to handle
  if (backend == Backend::kCuda) return RunCudaCompileWorker(fd, cache_dir, arch);
  std::unique_ptr<harness::OpenClContext> context;
  std::unique_ptr<harness::ProgramCache> cache;
  try {
    context = std::make_unique<harness::OpenClContext>(device_index);
    cache = std::make_unique<harness::ProgramCache>(cache_dir);
  } catch (const std::exception& e) {
    Reply(fd, EncodeFatal(e.what()));
    return 1;
  }
  if (!Reply(fd, EncodeReady({kWorkerProtocolVersion, context->device().name}))) return 0;
  // Zero inputs are cheap to make again: the two problems last used.
  ProblemShelf<WarmBuffers> warm_buffers(2);
  std::string payload;
  while (ReadFrame(fd, &payload)) {
    CompileRequest request = DecodeCompile(payload);
    // The options are MeasureInstance's, so the device worker finds the entry.
    const std::string options;
    const harness::ProgramKey key = harness::OpenClKeyFor(*context, request.source, options);
    CompileReply reply;
    if (!cache->Load(key)) {
      const double cpu_start = ProcessCpuMs();
      harness::OpenClBuildResult build = context->BuildFromSource(request.source, options);
      // The pool stops this process while the device measures (a CPU device's
      // cores are the device's then), which wall time counts and CPU time does
      // not; the cache entry and the database keep what the build cost.
      build.compile_ms = std::min(build.compile_ms, ProcessCpuMs() - cpu_start);
      reply.built = build.ok;
      reply.compile_ms = build.compile_ms;
      if (build.ok && request.warm) {
        const WarmBuffers& buffers = warm_buffers.Get(request.problem_key, [&] {
          auto fresh = std::make_unique<WarmBuffers>();
          fresh->data = ZeroProblemData(Problem::Parse(request.problem_key));
          fresh->device = UploadProblem(*context, fresh->data);
          return fresh;
        });
        auto start = std::chrono::steady_clock::now();
        {
          CpuLimit limit(kWarmGraceSeconds + kWarmJitFactor * build.compile_ms / 1000.0);
          WarmLaunch(*context, buffers, build.program, request);
        }
        reply.warm_ms = MsSince(start);
      }
      reply.result = harness::StoreBuild(*cache, key, build) ? CompileReply::Result::kCompiled
                                                             : CompileReply::Result::kNotStored;
    }
    if (!Reply(fd, EncodeCompiled(reply))) return 0;  // the pool is gone
  }
  return 0;
}

}  // namespace beast
