// The CUDA backend on a real GPU (CTest label "gpu"): every test skips itself,
// saying why, where the driver finds no GPU. A kernel loaded from NVRTC's cubin
// computes the right answer and is timed by events, with dynamic shared memory
// beyond 48 KiB (the opt-in) and a carveout; `beast tune --device cuda:0`
// tunes a GEMM and a convolution with correct results, NVRTC provenance and
// ptxas resources, cuBLAS / cuDNN baselines and a measured peak; the faulty
// test template's crash (an illegal address), hang and wrong answer are
// recorded as such while the run goes on; launch-time parameters share
// programs and run correctly; the tensor-core GEMM is correct on every path
// beside cuBLAS and the tensor-core conv beside cuDNN, in f16 and bf16.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "harness/cuda/cuda_context.hpp"
#include "harness/cuda/cuda_driver.hpp"
#include "harness/cuda/cuda_kernel.hpp"
#include "harness/cuda/nvrtc_compiler.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

const std::string kTestTemplates =
    std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/kernel_templates";

class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    harness::CudaProbe probe = harness::ProbeCuda();
    if (probe.devices.empty()) GTEST_SKIP() << "no CUDA GPU: " << probe.message;
    if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this beast has no NVRTC";
    device_ = probe.devices[0];
    dir_ = testing::FreshTestDir("gpu");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::map<std::string, results_db::ResultRow> Rows() {
    std::map<std::string, results_db::ResultRow> out;
    results_db::Store store = results_db::Store::OpenExisting(db_);
    for (auto& r : store.Query({})) out[r.template_name + " " + r.config_key] = r;
    return out;
  }

  // Every one of `problems` x `configs` measurements is ok or pruned after
  // compiling (a spill), none wrong or failed, and each problem has an ok one
  // at least (in all, `problems` ok ones or more).
  void ExpectOkOrPruned(int problems, int configs) {
    results_db::Store store = results_db::Store::OpenExisting(db_);
    int ok = 0, total = 0;
    for (const auto& r : store.Query({})) {
      ++total;
      EXPECT_TRUE(r.status == beast::Status::kOk || r.status == beast::Status::kPrunedAfterCompile)
          << r.problem_key << " " << r.config_key << ": " << beast::StatusName(r.status) << " "
          << r.error_text;
      ok += r.status == beast::Status::kOk;
    }
    EXPECT_EQ(total, problems * configs);
    EXPECT_GE(ok, problems);
  }

  // Exports the database, builds tests/integration/export/cuda_export_consumer
  // against the export and runs it in `mode` (its output and exit code).
  testing::CommandResult ExportAndRunConsumer(const std::string& mode) {
    const std::string out = (dir_ / "tuned").string();
    testing::CommandResult exported =
        RunCommand(BeastBinary() + " export --db " + db_ + " --out " + out);
    EXPECT_EQ(exported.exit_code, 0) << exported.output;
    if (exported.exit_code != 0) return exported;
    const std::string consumer =
        std::string(BEAST_TEST_SOURCE_DIR) + "/tests/integration/export/cuda_export_consumer";
    const std::string build = (dir_ / "consumer").string();
    testing::CommandResult built =
        RunCommand("cmake -S " + consumer + " -B " + build + " -DBEAST_TUNED_SOURCE_DIR=" + out +
                   " && cmake --build " + build + " -j4");
    EXPECT_EQ(built.exit_code, 0) << built.output;
    if (built.exit_code != 0) return built;
    return RunCommand(build + "/cuda_export_consumer " + mode);
  }

  DeviceInfo device_;
  fs::path dir_;
  std::string db_;
};

TEST_F(CudaGpu, AKernelRunsCorrectlyWithDynamicSharedMemoryBeyond48KiB) {
  // Each block stages its 256 inputs through `floats` floats of dynamic
  // shared memory (only the first 256 used), then y = 2 x + 1.
  const char* source =
      "extern \"C\" __global__ void stage(const float* x, float* y) {\n"
      "  extern __shared__ float s[];\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  s[threadIdx.x] = x[i];\n"
      "  __syncthreads();\n"
      "  y[i] = 2.0f * s[threadIdx.x] + 1.0f;\n"
      "}\n";
  harness::CudaCompileResult compiled = harness::CompileCuda(source, device_.arch, "stage");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  harness::CudaContext context(0);
  const size_t n = 4096;
  std::vector<float> x(n), y(n, 0.0f);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.5f;
  harness::CudaBuffer dx = context.Allocate(n * sizeof(float)),
                      dy = context.Allocate(n * sizeof(float));
  context.Write(dx, x.data(), n * sizeof(float));
  harness::CudaKernel kernel(context, compiled.cubin, "stage", {dx, dy});
  ASSERT_TRUE(kernel.ok()) << kernel.message();
  EXPECT_GT(kernel.resources().registers, 0);
  harness::LaunchGeometry g;
  g.dims = 1;
  g.global[0] = n;
  g.local[0] = 256;
  // 64 KiB: beyond the default 48 KiB, within every sm_70+ GPU's opt-in.
  g.dynamic_local_bytes = 64 * 1024;
  g.shared_carveout = 100;
  harness::LaunchResult r = kernel.Launch(g, /*flush_l2=*/true);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GT(r.kernel_ms, 0.0);
  context.Read(dy, y.data(), n * sizeof(float));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i] + 1.0f) << i;
  // A global size that is not whole blocks is refused, as on OpenCL.
  g.global[0] = n + 1;
  EXPECT_FALSE(kernel.Launch(g).ok());
}

TEST_F(CudaGpu, TunesGemmAndConvolutionWithBaselinesAndPeak) {
  testing::CommandResult run = RunCommand(
      BeastBinary() + " tune --device cuda:0 --template gemm/tiled --template conv2d/direct_nchw" +
      " --problem gemm:M=256,N=192,K=128 --problem conv2d:N=2,C=16,H=17,W=15,K=24,R=3,S=3,pad=1" +
      " --max-configs 8 --db " + db_ + " --cache-dir " + (dir_ / "cache").string() +
      " --flush-cache --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = testing::JsonOf(run.output);
  EXPECT_EQ(summary["device"], "cuda:0") << run.output;
  EXPECT_GT(summary["peak"].value("gflops", 0.0), 0.0) << run.output;
  std::map<std::string, results_db::ResultRow> rows = Rows();
  ASSERT_EQ(rows.size(), 16u);
  int ok = 0;
  for (const auto& [key, r] : rows) {
    EXPECT_TRUE(r.status == beast::Status::kOk || r.status == beast::Status::kCompileError ||
                r.status == beast::Status::kRuntimeError)
        << key << ": " << r.status;
    if (r.status != beast::Status::kOk) continue;
    ++ok;
    EXPECT_EQ(r.backend, "cuda");
    ASSERT_TRUE(r.registers.has_value()) << key;
    EXPECT_GT(*r.registers, 0) << key;
    ASSERT_TRUE(r.max_error.has_value());
    EXPECT_LE(*r.max_error, 1.0) << key;
  }
  EXPECT_GE(ok, 2);
  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::map<std::string, std::string> baselines;
  for (const auto& b : store.Baselines())
    baselines[b.library + " " + b.routine] =
        std::string(beast::StatusName(b.status)) + " " + b.error_text;
  EXPECT_EQ(baselines["cublas cublasSgemm"], "ok ");
  EXPECT_EQ(baselines["cudnn cudnnConvolutionForward"], "ok ");

  // The tuned library runs them on the GPU from its cubins, and an untuned
  // GEMM from the generic kernels' PTX, each checked against a reference.
  testing::CommandResult ran = ExportAndRunConsumer("gpu");
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(testing::CountOccurrences(ran.output, "ok "), 6u) << ran.output;
}

// A tuned library whose convolution winner needs a workspace (Winograd's
// four launches) runs it on the GPU: the workspace comes from the GPU's
// memory pool in stream order (cuMemAllocAsync) where the driver has one.
TEST_F(CudaGpu, TheExportedLibraryRunsAWinnerWithAWorkspace) {
  testing::CommandResult run = RunCommand(
      BeastBinary() + " tune --device cuda:0 --template conv2d/winograd_split" +
      " --problem conv2d:N=2,C=16,H=17,W=15,K=24,R=3,S=3,pad=1 --max-configs 4 --baselines none" +
      " --db " + db_ + " --cache-dir " + (dir_ / "cache").string() + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  testing::CommandResult ran = ExportAndRunConsumer("gpu-conv");
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(testing::CountOccurrences(ran.output, "ok "), 2u) << ran.output;
  EXPECT_NE(ran.output.find("exact tuned: conv2d/winograd_split"), std::string::npos) << ran.output;
}

// The tensor-core gemm/mma computes the right answer (validated against the
// double reference within the f16/bf16 or TF32 bound) on every path: the
// four transpositions, column-major, and tails in M, N and K; in f16, bf16
// and f32 with math=tf32; beside cuBLAS in the same dtype and math. Only a GPU can say this: here
// the template was only ever compiled (tests/unit/harness/cuda/).
TEST_F(CudaGpu, TheTensorCoreGemmIsCorrectOnEveryPathBesideCublas) {
  std::string problems;
  for (const char* dtype : {"f16", "bf16", "f32,math=tf32"}) {
    for (int t = 0; t < 8; ++t) {
      problems += std::string(" --problem gemm:M=200,N=136,K=72,transA=") + std::to_string(t & 1) +
                  ",transB=" + std::to_string((t >> 1) & 1) + (t & 4 ? ",layout=col" : "") +
                  ",dtype=" + dtype;
    }
  }
  testing::CommandResult run =
      RunCommand(BeastBinary() + " tune --device cuda:0 --template gemm/mma" + problems +
                 " --max-configs 6 --baselines nvidia --db " + db_ + " --cache-dir " +
                 (dir_ / "cache").string() + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ExpectOkOrPruned(24, 6);
  // The run measured the tensor cores' peak of its three mma input types
  // (the roof of these winners' %peak): f16 and bf16 above the FMA peak on
  // every GPU with them, TF32 at least half of it (about equal on GeForce
  // Ampere and Ada, several times on the data-centre parts).
  const nlohmann::json summary = testing::JsonOf(run.output);
  ASSERT_TRUE(summary.contains("peak") && summary["peak"].is_object()) << run.output;
  const nlohmann::json& peak = summary["peak"];
  ASSERT_TRUE(peak.contains("gflops_tensor") && peak["gflops"].is_number()) << run.output;
  const double fma = peak["gflops"].get<double>();
  for (const char* input : {"f16", "bf16", "tf32"}) {
    ASSERT_TRUE(peak["gflops_tensor"].contains(input)) << input;
    const nlohmann::json& tensor = peak["gflops_tensor"][input];
    ASSERT_TRUE(tensor.is_number()) << input << ": " << run.output;
    EXPECT_GT(tensor.get<double>(), std::string(input) == "tf32" ? fma / 2 : fma) << input;
  }
  results_db::Store store = results_db::Store::OpenExisting(db_);
  int library = 0;
  for (const auto& b : store.Baselines()) {
    // cublasGemmEx for the 16-bit types, SGEMM in TF32 math for math=tf32.
    const bool tf32 = b.problem_key.find(",math=tf32") != std::string::npos;
    EXPECT_EQ(b.library + " " + b.routine, tf32 ? "cublas cublasSgemm" : "cublas cublasGemmEx");
    EXPECT_EQ(beast::StatusName(b.status), std::string("ok")) << b.error_text;
    ++library;
  }
  EXPECT_EQ(library, 24);
}

// The tensor-core conv is correct in both layouts and its three dtypes, plain,
// grouped-strided-dilated with bias and 1x1, beside cuDNN in the same dtype.
TEST_F(CudaGpu, TheTensorCoreConvIsCorrectOnEveryPathBesideCudnn) {
  std::string problems;
  int count = 0;
  for (const char* dtype : {"f16", "bf16", "f32,math=tf32"}) {
    for (const char* layout : {"NHWC", "NCHW"}) {
      for (const char* shape :
           {"conv2d:N=4,C=64,H=14,W=14,K=64,R=3,S=3,pad=1",
            "conv2d:N=3,C=64,H=29,W=27,K=96,R=3,S=3,stride=2,pad=2,dilation=2,groups=4,bias=1",
            "conv2d:N=2,C=24,H=7,W=9,K=40,R=1,S=1"}) {
        problems += std::string(" --problem ") + shape + ",layout=" + layout + ",dtype=" + dtype;
        ++count;
      }
    }
  }
  testing::CommandResult run =
      RunCommand(BeastBinary() + " tune --device cuda:0 --template conv2d/implicit_gemm_mma" +
                 problems + " --max-configs 6 --baselines nvidia --db " + db_ + " --cache-dir " +
                 (dir_ / "cache").string() + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ExpectOkOrPruned(count, 6);
  results_db::Store store = results_db::Store::OpenExisting(db_);
  int library = 0;
  for (const auto& b : store.Baselines()) {
    EXPECT_EQ(b.library + " " + b.routine, "cudnn cudnnConvolutionForward");
    EXPECT_EQ(beast::StatusName(b.status), std::string("ok")) << b.problem_key << b.error_text;
    ++library;
  }
  EXPECT_EQ(library, count);
}

// Split-K (SPLITK > 1: blocks share a tile's reduction, the last to arrive
// adds the partials) is correct on the GPU, where blocks really run
// together and the arrival counters and fences matter: the CPU emulator
// runs blocks one after another (tests/python/test_tensor_core_emulation.py).
TEST_F(CudaGpu, TheTensorCoreSplitKIsCorrectWhereBlocksRunTogether) {
  std::string problems;
  int count = 0;
  for (const char* dtype : {"f16", "bf16", "f32,math=tf32"}) {
    problems += std::string(" --problem gemm:M=200,N=136,K=1000,dtype=") + dtype;
    for (const char* layout : {"NHWC", "NCHW"}) {
      problems += std::string(" --problem conv2d:N=3,C=128,H=7,W=7,K=72,R=3,S=3,pad=1,bias=1") +
                  ",layout=" + layout + ",dtype=" + dtype;
    }
    count += 3;
  }
  testing::CommandResult run =
      RunCommand(BeastBinary() + " tune --device cuda:0 --template gemm/mma" +
                 " --template conv2d/implicit_gemm_mma" + problems +
                 " --constraint \"hard: SPLITK > 1\" --max-configs 6 --baselines none --db " + db_ +
                 " --cache-dir " + (dir_ / "cache").string() + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ExpectOkOrPruned(count, 6);
}

TEST_F(CudaGpu, ACrashAHangAndAWrongAnswerAreRecordedAndTheRunGoesOn) {
  testing::CommandResult run =
      RunCommand(BeastBinary() + " tune --device cuda:0 --templates " + kTestTemplates +
                 " --template test/faulty --problem gemm:M=64,N=64,K=64 --baselines none" +
                 " --confirm-top 0 --timeout-seconds 20 --db " + db_ + " --no-cache --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::map<std::string, results_db::ResultRow> rows = Rows();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows["test/faulty MODE=0"].status, beast::Status::kOk)
      << rows["test/faulty MODE=0"].error_text;
  EXPECT_EQ(rows["test/faulty MODE=1"].status, beast::Status::kCrashed)
      << rows["test/faulty MODE=1"].error_text;
  EXPECT_EQ(rows["test/faulty MODE=2"].status, beast::Status::kTimeout)
      << rows["test/faulty MODE=2"].error_text;
  EXPECT_EQ(rows["test/faulty MODE=3"].status, beast::Status::kWrongResult)
      << rows["test/faulty MODE=3"].error_text;
}

TEST_F(CudaGpu, LaunchTimeParametersShareProgramsAndRunCorrectly) {
  testing::CommandResult run = RunCommand(
      BeastBinary() + " tune --device cuda:0 --templates " + kTestTemplates +
      " --template test/launch_params --problem gemm:M=9,N=13,K=37 --baselines none --confirm-top "
      "0" +
      " --compile-jobs 0 --db " + db_ + " --cache-dir " + (dir_ / "cache").string() + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(testing::JsonOf(run.output)["programs_compiled"], 2) << run.output;
  std::map<std::string, results_db::ResultRow> rows = Rows();
  ASSERT_EQ(rows.size(), 10u);
  for (const auto& [key, r] : rows)
    EXPECT_EQ(r.status, beast::Status::kOk) << key << ": " << r.error_text;
}

}  // namespace
}  // namespace beast
