// The compile pool on PoCL, driving real compile workers (`beast worker
// --compile`): programs land in the cache in job order and a second pool
// finds them there; a rejected source is stored as such; a kernel that
// crashes or never ends on its warm-up launch costs only its worker, and the
// next job gets a fresh one; Pause stops every worker process and Resume lets
// it go on; jobs the pool never reached are the caller's to prepare. For a
// CUDA run the workers compile with NVRTC for the GPU's architecture, opening
// no device (so this runs here, without a GPU).
#include "beast/compile/compile_pool.hpp"  // private to beast_tuner

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/cache/program_cache.hpp"
#include "harness/cuda/cuda_build.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "harness/opencl/opencl_cached_build.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;

const char kProblem[] = "gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f32";

// A kernel of beast's GEMM contract (A, B, C); `body` is its statement.
std::string Kernel(const std::string& body) {
  return "__kernel void k(__global const float* A, __global const float* B, __global float* C) "
         "{ const int i = get_global_id(0); " +
         body + " }";
}

PreparedInstance Instance(const std::string& source) {
  PreparedInstance p;
  p.request.problem_key = kProblem;
  p.request.source = source;
  p.request.kernel_name = "k";
  p.request.geometry.dims = 1;
  p.request.geometry.global[0] = 64;
  p.request.geometry.local[0] = 8;
  return p;
}

class CompilePoolTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("compile_pool"); }
  void TearDown() override { fs::remove_all(dir_); }

  CompilePool::Options Options(int jobs) const {
    CompilePool::Options o;
    o.executable = testing::BeastBinary();
    o.device_index = 0;
    o.cache_dir = (dir_ / "cache").string();
    o.jobs = jobs;
    o.window = 8;
    o.timeout_seconds = 60;
    o.warm = true;
    return o;
  }

  // A pool over `sources`, each taken in order.
  std::vector<CompilePool::Taken> RunPool(const std::vector<std::string>& sources, int jobs) {
    CompilePool pool(Options(jobs), sources.size(),
                     [&](size_t i) { return Instance(sources.at(i)); });
    std::vector<CompilePool::Taken> taken;
    for (size_t i = 0; i < sources.size(); ++i) {
      std::optional<CompilePool::Taken> t = pool.Take(i, stop_);
      EXPECT_TRUE(t.has_value());
      if (t) taken.push_back(std::move(*t));
    }
    EXPECT_EQ(pool.error(), "");
    return taken;
  }

  fs::path dir_;
  std::atomic<bool> stop_{false};
};

TEST_F(CompilePoolTest, BuildsIntoTheCacheAndASecondPoolFindsThem) {
  std::vector<std::string> sources;
  for (int i = 0; i < 4; ++i) sources.push_back(Kernel("C[i] = " + std::to_string(i) + ".0f;"));
  std::vector<CompilePool::Taken> first = RunPool(sources, 2);
  ASSERT_EQ(first.size(), 4u);
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_TRUE(first[i].prepared);
    EXPECT_EQ(first[i].instance.request.source, sources[i]);  // in job order
    EXPECT_EQ(first[i].built, CompilePool::Built::kCompiled);
    EXPECT_GT(first[i].compile_ms, 0);
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "cache"), fs::directory_iterator()), 4);
  for (const CompilePool::Taken& t : RunPool(sources, 1))
    EXPECT_EQ(t.built, CompilePool::Built::kCached);
}

TEST_F(CompilePoolTest, ARejectedSourceIsStoredAsSuch) {
  const std::string bad = Kernel("C[i] = no_such_name;");
  std::vector<CompilePool::Taken> taken = RunPool({bad}, 1);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].built, CompilePool::Built::kCompiled);
  harness::ProgramCache cache((dir_ / "cache").string());
  harness::OpenClContext context(0);
  std::optional<harness::CachedProgram> entry = cache.Load(harness::OpenClKeyFor(context, bad, ""));
  ASSERT_TRUE(entry.has_value());
  EXPECT_FALSE(entry->built);
  EXPECT_NE(entry->log.find("no_such_name"), std::string::npos) << entry->log;
}

TEST_F(CompilePoolTest, AKernelThatCrashesOrHangsCostsOnlyItsWorker) {
  const std::vector<std::string> sources = {
      Kernel("C[i + ((long)1 << 40)] = 1.0f;"),                    // faults on the warm-up launch
      Kernel("C[i] = 2.0f;"),                                      // a fresh worker builds it
      Kernel("volatile int spin = 1; while (spin) {} C[i] = 0;"),  // never ends
      Kernel("C[i] = 3.0f;")};
  auto start = std::chrono::steady_clock::now();
  std::vector<CompilePool::Taken> taken = RunPool(sources, 1);
  ASSERT_EQ(taken.size(), 4u);
  EXPECT_EQ(taken[0].built, CompilePool::Built::kFailed);
  EXPECT_EQ(taken[1].built, CompilePool::Built::kCompiled);
  EXPECT_EQ(taken[2].built, CompilePool::Built::kFailed);
  EXPECT_EQ(taken[3].built, CompilePool::Built::kCompiled);
  for (const auto& t : taken) EXPECT_TRUE(t.prepared);  // the device worker takes them on
  // The endless kernel was stopped by its CPU-time limit (3 s and 5 x its
  // build), far below the pool's 60 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST_F(CompilePoolTest, PauseStopsEveryWorkerAndResumeLetsThemGoOn) {
  std::vector<std::string> sources;
  for (int i = 0; i < 6; ++i) sources.push_back(Kernel("C[i] = " + std::to_string(i) + ".5f;"));
  CompilePool pool(Options(2), sources.size(), [&](size_t i) { return Instance(sources.at(i)); });
  ASSERT_TRUE(pool.Take(0, stop_).has_value());  // a worker is up
  auto state = [](pid_t pid) {                   // the state letter of /proc/PID/stat
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
  };
  pool.Pause();
  std::vector<pid_t> pids = pool.worker_pids();
  ASSERT_FALSE(pids.empty());
  for (pid_t pid : pids) EXPECT_EQ(state(pid), 'T') << pid;
  pool.Resume();
  // SIGCONT, unlike the stop Pause waits for, lands a moment later.
  for (pid_t pid : pool.worker_pids()) {
    auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (state(pid) == 'T' && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_NE(state(pid), 'T') << pid;
  }
  for (size_t i = 1; i < sources.size(); ++i) {
    std::optional<CompilePool::Taken> t = pool.Take(i, stop_);
    ASSERT_TRUE(t.has_value());
    EXPECT_NE(t->built, CompilePool::Built::kFailed);
  }
}

TEST_F(CompilePoolTest, WithoutWorkersEveryJobIsTheCallers) {
  int prepared = 0;
  CompilePool pool(Options(0), 3, [&](size_t) {
    ++prepared;
    return Instance(Kernel("C[i] = 1.0f;"));
  });
  pool.Skip(1);
  for (size_t i = 0; i < 3; ++i) {
    std::optional<CompilePool::Taken> t = pool.Take(i, stop_);
    ASSERT_TRUE(t.has_value());
    EXPECT_FALSE(t->prepared);
    EXPECT_EQ(t->built, CompilePool::Built::kNone);
  }
  EXPECT_EQ(prepared, 0);
}

TEST_F(CompilePoolTest, ACacheDirectoryTheWorkersCannotUseStopsThePool) {
  fs::create_directories(dir_);
  std::ofstream((dir_ / "file").string()) << "x";
  CompilePool::Options o = Options(1);
  o.cache_dir = (dir_ / "file" / "cache").string();
  CompilePool pool(o, 2, [&](size_t) { return Instance(Kernel("C[i] = 1.0f;")); });
  std::optional<CompilePool::Taken> t = pool.Take(0, stop_);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->built, CompilePool::Built::kNone);
  EXPECT_EQ(pool.error(),
            "a compile worker did not start: cannot use the program cache directory " +
                o.cache_dir + ": Not a directory");
  std::optional<CompilePool::Taken> next = pool.Take(1, stop_);
  ASSERT_TRUE(next.has_value());
  EXPECT_FALSE(next->prepared);  // the pool stopped: the caller's
}

TEST_F(CompilePoolTest, CudaWorkersCompileWithNvrtcForTheArchitectureWithoutADevice) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this beast has no NVRTC";
  auto cuda_kernel = [](const std::string& body) {
    return "extern \"C\" __global__ void k(const float* A, const float* B, float* C) { "
           "const int i = blockIdx.x * blockDim.x + threadIdx.x; " +
           body + " }";
  };
  const std::vector<std::string> sources = {cuda_kernel("C[i] = A[i] + B[i];"),
                                            cuda_kernel("C[i] = no_such_name;"),
                                            cuda_kernel("C[i] = A[i] + B[i];")};
  CompilePool::Options o = Options(2);
  o.backend = Backend::kCuda;
  o.arch = "sm_90";
  o.device_index = 7;  // no such GPU: a CUDA compile worker opens none
  o.warm = false;
  CompilePool pool(o, sources.size(), [&](size_t i) { return Instance(sources.at(i)); });
  std::vector<CompilePool::Taken> taken;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::optional<CompilePool::Taken> t = pool.Take(i, stop_);
    ASSERT_TRUE(t.has_value()) << i;
    taken.push_back(std::move(*t));
  }
  EXPECT_EQ(pool.error(), "");
  EXPECT_EQ(taken[1].built, CompilePool::Built::kCompiled);  // the rejection is stored
  // Jobs 0 and 2 are the same source: the worker that gets there first
  // compiles it; the other finds it cached, or compiles it too when both
  // were at it at once. Never a failure, and never cached twice.
  for (size_t i : {0u, 2u}) {
    EXPECT_TRUE(taken[i].built == CompilePool::Built::kCompiled ||
                taken[i].built == CompilePool::Built::kCached)
        << i;
  }
  EXPECT_FALSE(taken[0].built == CompilePool::Built::kCached &&
               taken[2].built == CompilePool::Built::kCached);
  harness::ProgramCache cache(o.cache_dir);
  harness::CudaBuild ok = harness::BuildCudaThroughCache(&cache, sources[0], "sm_90", "k");
  EXPECT_TRUE(ok.from_cache);
  EXPECT_TRUE(ok.compiled.ok);
  EXPECT_GT(ok.compiled.resources.registers, 0);
  EXPECT_EQ(ok.compiled.cubin.substr(1, 3), "ELF");
  harness::CudaBuild bad = harness::BuildCudaThroughCache(&cache, sources[1], "sm_90", "k");
  EXPECT_TRUE(bad.from_cache);
  EXPECT_FALSE(bad.compiled.ok);
  EXPECT_NE(bad.compiled.log.find("no_such_name"), std::string::npos) << bad.compiled.log;
}

}  // namespace
}  // namespace beast
