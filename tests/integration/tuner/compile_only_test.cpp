// Compile-only tuning through the beast CLI (--device cuda:sm_XX), with NVRTC
// and no GPU: a sample of gemm/tiled and conv2d/direct_nchw is compiled for
// sm_80 and for sm_90 and every config recorded with its resources, NVRTC's
// version and the spec table's device; a rerun compiles nothing; a
// --constraint on registers prunes exactly the configs whose ptxas register
// count exceeds it; an unknown architecture, or one NVRTC cannot compile for,
// is one line.
// Skips itself when this beast was built without NVRTC.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "harness/cuda/nvrtc_compiler.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;
using testing::SqlCount;

const char kGemm[] = "gemm:M=512,N=512,K=512,transA=0,transB=0,dtype=f32";
const char kConv[] =
    "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride_h=1,stride_w=1,pad_h=1,pad_w=1,dilation_h=1,"
    "dilation_w=1,groups=1,layout=NCHW,dtype=f32";

class CompileOnly : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("compile_only"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Db(const std::string& name) const { return (dir_ / name).string(); }

  static testing::CommandResult Tune(const std::string& args) {
    return RunCommand(BeastBinary() + " tune " + args);
  }

  // Compiles 6 configs of each template for `arch`, twice, and checks both runs.
  void CompilesTheSampleAndResumes(const std::string& arch) {
    const std::string db = Db(arch + ".db");
    const std::string cache = (dir_ / "cache").string();
    const std::string sample = "--device cuda:" + arch +
                               " --template gemm/tiled --template conv2d/direct_nchw --problem "
                               "gemm:M=512,N=512,K=512 --problem "
                               "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1 "
                               "--max-configs 6 --cache-dir " +
                               cache;
    const std::string args = sample + " --db " + db;
    testing::CommandResult run = Tune(args);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(CountOccurrences(run.output, "programs: 12 compiled now, 0 from the cache " + cache),
              1u)
        << run.output;
    EXPECT_EQ(CountOccurrences(run.output, "compiled for cuda:" + arch + " (compile-only " + arch +
                                               ") with NVRTC " + harness::NvrtcVersion() + "\n"),
              1u)
        << run.output;
    results_db::Store store = results_db::Store::OpenExisting(db);
    std::vector<results_db::DeviceRow> devices = store.Devices();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].backend, "cuda");
    EXPECT_EQ(devices[0].name, "compile-only " + arch);
    EXPECT_EQ(devices[0].arch, arch);
    EXPECT_EQ(devices[0].driver_version, "spec table");
    std::vector<results_db::ResultRow> rows = store.Query({});
    ASSERT_EQ(rows.size(), 12u);
    std::map<std::string, int> per_pair, defaults;
    for (const auto& r : rows) {
      ++per_pair[r.template_name + " " + r.problem_key];
      defaults[r.template_name] += r.is_default;
      // The sampled configs of both templates compile for both architectures.
      EXPECT_EQ(r.status, beast::Status::kCompiled) << r.config_key << ": " << r.error_text;
      ASSERT_TRUE(r.registers.has_value()) << r.config_key;
      EXPECT_GT(*r.registers, 0) << r.config_key;
      EXPECT_LE(*r.registers, 255) << r.config_key;
      EXPECT_TRUE(r.spill_bytes && r.stack_bytes && r.shared_bytes) << r.config_key;
      EXPECT_GT(r.compile_ms.value_or(0), 0) << r.config_key;
      EXPECT_FALSE(r.median_ms.has_value()) << r.config_key;
    }
    EXPECT_EQ(per_pair, (std::map<std::string, int>{{std::string("conv2d/direct_nchw ") + kConv, 6},
                                                    {std::string("gemm/tiled ") + kGemm, 6}}));
    EXPECT_EQ(defaults, (std::map<std::string, int>{{"conv2d/direct_nchw", 1}, {"gemm/tiled", 1}}));
    EXPECT_EQ(SqlCount(db,
                       "SELECT count(*) FROM measurements WHERE compiler = 'nvrtc' AND "
                       "compiler_version = '" +
                           harness::NvrtcVersion() + "'"),
              12);

    // The rerun finds everything recorded and compiles nothing.
    testing::CommandResult again = Tune(args + " --json");
    ASSERT_EQ(again.exit_code, 0) << again.output;
    const nlohmann::json pairs = testing::JsonOf(again.output)["pairs"];
    ASSERT_EQ(pairs.size(), 2u) << again.output;
    for (const auto& pair : pairs) {
      EXPECT_EQ(pair["measured"], 0) << again.output;
      EXPECT_EQ(pair["skipped"], 6) << again.output;
      EXPECT_EQ(pair["failed"], 0) << again.output;
    }
    EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), 12);
    EXPECT_EQ(store.Query({}).front().measurement_id, rows.front().measurement_id);

    // Another database records every config again, from the program cache.
    testing::CommandResult other = Tune(sample + " --db " + Db(arch + "_other.db"));
    ASSERT_EQ(other.exit_code, 0) << other.output;
    EXPECT_EQ(
        CountOccurrences(other.output, "programs: 0 compiled now, 12 from the cache " + cache), 1u)
        << other.output;
    EXPECT_EQ(SqlCount(Db(arch + "_other.db"),
                       "SELECT count(*) FROM measurements WHERE status = 'compiled' AND "
                       "registers > 0"),
              12);
  }

  fs::path dir_;
};

TEST_F(CompileOnly, Sm80CompilesTheSampleAndResumes) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  CompilesTheSampleAndResumes("sm_80");
}

TEST_F(CompileOnly, Sm90CompilesTheSampleAndResumes) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  CompilesTheSampleAndResumes("sm_90");
}

TEST_F(CompileOnly, RegisterConstraintPrunesExactlyTheConfigsOverIt) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  const std::string args =
      "--device cuda:sm_80 --template gemm/tiled --problem gemm:M=512,N=512,K=512 "
      "--max-configs 8 --seed 3 --quiet --db ";
  ASSERT_EQ(Tune(args + Db("free.db")).exit_code, 0);
  std::map<std::string, int64_t> registers;
  for (const auto& r : results_db::Store::OpenExisting(Db("free.db")).Query({})) {
    ASSERT_EQ(r.status, beast::Status::kCompiled) << r.config_key << ": " << r.error_text;
    registers[r.config_key] = r.registers.value_or(-1);
  }
  ASSERT_EQ(registers.size(), 8u);
  // A bound in the middle: some configs use more registers, some do not.
  std::vector<int64_t> counts;
  for (const auto& [key, n] : registers) counts.push_back(n);
  std::sort(counts.begin(), counts.end());
  const int64_t bound = counts[counts.size() / 2 - 1];
  ASSERT_LT(bound, counts.back()) << "every sampled config uses " << bound << " registers";

  const std::string bounded = Db("bounded.db");
  testing::CommandResult run =
      Tune(args + bounded + " --constraint \"hard: registers <= " + std::to_string(bound) + "\"");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::vector<results_db::ResultRow> rows = results_db::Store::OpenExisting(bounded).Query({});
  ASSERT_EQ(rows.size(), 8u);
  int pruned = 0;
  for (const auto& r : rows) {
    // ptxas is deterministic: the same config gets the same registers.
    ASSERT_EQ(r.registers, registers.at(r.config_key)) << r.config_key;
    bool over = *r.registers > bound;
    pruned += over;
    EXPECT_EQ(r.status, over ? beast::Status::kPrunedAfterCompile : beast::Status::kCompiled)
        << r.config_key;
    EXPECT_EQ(r.error_text, over ? "violates hard constraint \"registers <= " +
                                       std::to_string(bound) + "\" (command line) after compile"
                                 : "")
        << r.config_key;
  }
  EXPECT_GE(pruned, 1);
  EXPECT_LE(pruned, 4);
}

TEST_F(CompileOnly, UnknownArchitectureIsOneLineNamingTheKnownOnes) {
  testing::CommandResult run =
      Tune("--device cuda:sm_99 --template gemm/tiled --problem gemm:M=64,N=64,K=64 --db " +
           Db("none.db"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.output, "beast tune: cuda:sm_99: no spec table for sm_99 in " +
                            std::string(BEAST_TEST_SOURCE_DIR) +
                            "/constraints/devices (known: sm_70 sm_75 sm_80 sm_86 sm_89 sm_90)\n");
  EXPECT_FALSE(fs::exists(Db("none.db")));
}

// The spec table covers architectures the installed NVRTC may have dropped
// (CUDA 13 compiles nothing older than sm_75): tuning for one is one line,
// not a database of compile errors.
TEST_F(CompileOnly, AnArchitectureNvrtcCannotCompileForIsOneLine) {
  if (!harness::NvrtcAvailable()) GTEST_SKIP() << "this build has no NVRTC";
  const std::vector<int> supported = harness::NvrtcSupportedArchs();
  ASSERT_FALSE(supported.empty());
  std::string dropped;
  for (const char* arch : {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}) {
    if (std::find(supported.begin(), supported.end(), std::atoi(arch + 3)) == supported.end()) {
      dropped = arch;
      break;
    }
  }
  if (dropped.empty()) GTEST_SKIP() << "this NVRTC compiles for every architecture of the table";
  testing::CommandResult run =
      Tune("--device cuda:" + dropped +
           " --template gemm/tiled --problem gemm:M=64,N=64,K=64 --db " + Db("none.db"));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.output, "beast tune: cuda:" + dropped + ": NVRTC " + harness::NvrtcVersion() +
                            " cannot compile for " + dropped + " (it supports sm_" +
                            std::to_string(supported.front()) + " to sm_" +
                            std::to_string(supported.back()) + "): use a CUDA toolkit that does\n");
  EXPECT_FALSE(fs::exists(Db("none.db")));
  // Counting a space needs no compiler: the table's limits are enough.
  testing::CommandResult space =
      RunCommand(BeastBinary() +
                 " space gemm/tiled --problem gemm:M=1024,N=1024,K=1024 --device "
                 "cuda:" +
                 dropped + " --json");
  EXPECT_EQ(space.exit_code, 0) << space.output;
}

}  // namespace
}  // namespace beast
