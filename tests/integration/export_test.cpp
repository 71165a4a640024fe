// beast export end to end: a database of winners on the OpenCL CPU device is
// exported, the project is configured, built and installed with CMake from
// scratch, and a separate consumer project (export_consumer/) finds it with
// find_package and checks every tuned problem against a CPU reference. Also
// the refusals: an empty database, a changed template, a foreign folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "beast/bound_space.hpp"
#include "beast/error.hpp"
#include "beast/exporter.hpp"
#include "beast/paths.hpp"
#include "command_runner.hpp"
#include "harness/opencl_devices.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::CountOccurrences;
using testing::RunCommand;

// The problems export_consumer/main.c runs (the two lists must agree).
const char* const kProblems[] = {
    "gemm:M=64,N=48,K=40,dtype=f32",
    "gemm:M=33,N=17,K=29,transA=1,transB=1,dtype=f32",
    "gemm:M=33,N=17,K=29,transA=1,layout=col,dtype=f32",
    "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,layout=NCHW,dtype=f32",
    "conv2d:N=2,C=4,H=9,W=7,K=6,R=3,S=2,stride_h=1,stride_w=2,pad_h=2,pad_w=0,dilation=2,"
    "groups=2,bias=1,layout=NCHW,dtype=f32",
};
// The "ok" lines main.c prints when every check passes.
constexpr size_t kConsumerChecks = 95;
const char kStaleHash[] = "0123456789abcdef";

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<DeviceInfo> devices = harness::ListOpenCLDevices();
    if (devices.empty()) GTEST_SKIP() << "no OpenCL device";
    device_ = devices[0];
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("beast_export_test_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "beast.db").string();
    options_ = ExportOptions::Defaults();
    options_.templates_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
    options_.render_script = std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render.py";
    options_.skeleton_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/beast/export_skeleton";
    options_.db_path = db_;
    options_.out_dir = (dir_ / "tuned").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Records, for each problem, its template's first valid config at 2 ms, a
  // middle one at 1 ms (the winner) and the last as a compile error; returns
  // the winners' config keys by problem key. Template `stale` is recorded with
  // a hash it does not have.
  std::map<std::string, std::string> RecordWinners(const std::string& stale = "") {
    results_db::Store store = results_db::Store::Open(db_);
    int64_t device_id =
        store.UpsertDevice({"opencl", device_.name, device_.vendor, device_.driver_version,
                            device_.arch, DeviceLimitsToJson(device_.limits)});
    int64_t run = store.BeginRun("export_test", BEAST_VERSION);
    std::map<std::string, std::string> winners;
    for (const char* key : kProblems) {
      Problem problem = Problem::Parse(key);
      SpaceSpec spec =
          SpaceSpec::Load(options_.templates_dir,
                          problem.op() == OpKind::kGemm ? "gemm/tiled" : "conv2d/direct_nchw");
      int64_t problem_id = store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
      int64_t template_id = store.UpsertTemplate(
          spec.name, spec.name == stale ? kStaleHash : spec.hash, spec.source_rel);
      std::vector<Config> configs = BoundSpace(spec, problem, device_).Enumerate();
      EXPECT_GE(configs.size(), 3u) << key;
      const Config* picks[3] = {&configs.front(), &configs[configs.size() / 2], &configs.back()};
      for (int i = 0; i < 3; ++i) {
        results_db::MeasurementRecord m;
        m.run_id = run;
        m.device_id = device_id;
        m.problem_id = problem_id;
        m.config_id =
            store.UpsertConfig(template_id, picks[i]->Key(), picks[i]->Hash(), picks[i]->ToJson());
        m.is_default = false;
        m.status = i == 2 ? "compile_error" : "ok";
        if (i < 2) {
          m.samples_ms = {2.0 - i, 2.0 - i, 2.0 - i};
          m.median_ms = 2.0 - i;
        }
        store.RecordMeasurement(m);
      }
      winners[problem.Key()] = picks[1]->Key();
    }
    store.FinishRun(run, "finished");
    return winners;
  }

  // Runs a shell command, returning its output when it fails.
  static std::string Shell(const std::string& command) {
    testing::CommandResult r = RunCommand(command);
    return r.exit_code == 0
               ? ""
               : command + " failed (" + std::to_string(r.exit_code) + "):\n" + r.output;
  }

  DeviceInfo device_;
  fs::path dir_;
  std::string db_;
  ExportOptions options_;
};

TEST_F(ExportTest, ExportBuildsInstallsAndRunsInAConsumer) {
  std::map<std::string, std::string> winners = RecordWinners();
  ExportSummary summary = ExportLibrary(options_);
  ASSERT_EQ(summary.entries.size(), 5u);
  std::map<std::string, std::string> exported;
  for (const ExportEntry& e : summary.entries) {
    exported[e.problem_key] = e.config_key;
    EXPECT_EQ(e.device_name, device_.name);
    EXPECT_EQ(e.median_ms, 1.0);
  }
  EXPECT_EQ(exported, winners);
  EXPECT_EQ(summary.files,
            (std::vector<std::string>{
                ".beast-export", "CMakeLists.txt", "README.md", "beast_tuned.pc.in",
                "cmake/BeastTunedConfig.cmake.in",
                "include/beast_tuned.h", "src/beast_context.c", "src/beast_dispatch.c",
                "src/beast_errors.c", "src/beast_generic.c", "src/beast_host.c", "src/beast_kernels.c",
                "src/beast_launch.c",
                "src/beast_runtime.h", "src/beast_table.h"}));
  std::ifstream kernels(dir_ / "tuned" / "src" / "beast_kernels.c");
  std::string first_line;
  std::getline(kernels, first_line);
  EXPECT_EQ(first_line.rfind("/* Generated by beast " BEAST_VERSION " (beast export)", 0), 0u)
      << first_line;

  const std::string build = (dir_ / "build").string(), prefix = (dir_ / "prefix").string();
  ASSERT_EQ(Shell("cmake -S " + options_.out_dir + " -B " + build +
                  " -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=" + prefix),
            "");
  ASSERT_EQ(Shell("cmake --build " + build + " -j2"), "");
  ASSERT_EQ(Shell("cmake --install " + build), "");
  // The consumer links the installed package, then the export as a subproject.
  const std::string source = BEAST_TEST_SOURCE_DIR "/tests/integration/export_consumer";
  const std::pair<std::string, std::string> ways[] = {
      {"installed", "-DCMAKE_PREFIX_PATH=" + prefix},
      {"subproject", "-DBEAST_TUNED_SOURCE_DIR=" + options_.out_dir}};
  for (const auto& [way, define] : ways) {
    const std::string consumer = (dir_ / ("consumer_" + way)).string();
    ASSERT_EQ(Shell("cmake -S " + source + " -B " + consumer + " " + define), "") << way;
    ASSERT_EQ(Shell("cmake --build " + consumer + " -j2"), "") << way;
    testing::CommandResult run = RunCommand(consumer + "/consumer");
    EXPECT_EQ(run.exit_code, 0) << way << "\n" << run.output;
    EXPECT_EQ(CountOccurrences("\n" + run.output, "\nok "), kConsumerChecks) << way << "\n"
                                                                             << run.output;
    EXPECT_EQ(CountOccurrences(run.output, "FAIL"), 0u) << way << "\n" << run.output;
  }
  // A shared build, installed, found by pkg-config and linked without CMake.
  const std::string shared_build = (dir_ / "build_shared").string();
  const std::string shared_prefix = (dir_ / "prefix_shared").string();
  ASSERT_EQ(Shell("cmake -S " + options_.out_dir + " -B " + shared_build +
                  " -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=" +
                  shared_prefix + " -DCMAKE_INSTALL_LIBDIR=lib"),
            "");
  ASSERT_EQ(Shell("cmake --build " + shared_build + " -j2"), "");
  ASSERT_EQ(Shell("cmake --install " + shared_build), "");
  ASSERT_TRUE(fs::exists(shared_prefix + "/lib/libbeast_tuned.so"));
  const std::string consumer = (dir_ / "consumer_pkg_config").string();
  ASSERT_EQ(Shell("PKG_CONFIG_PATH=" + shared_prefix + "/lib/pkgconfig cc -std=c11 -O2 -o " +
                  consumer + " " + source + "/*.c $(PKG_CONFIG_PATH=" + shared_prefix +
                  "/lib/pkgconfig pkg-config --cflags --libs beast_tuned) -lOpenCL -lpthread -lm"),
            "");
  testing::CommandResult run = RunCommand("LD_LIBRARY_PATH=" + shared_prefix + "/lib " + consumer);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(CountOccurrences("\n" + run.output, "\nok "), kConsumerChecks) << run.output;
}

TEST_F(ExportTest, ReExportReplacesThePreviousExportWhole) {
  RecordWinners();
  ExportLibrary(options_);
  std::ofstream(fs::path(options_.out_dir) / "left_over.txt") << "from the first export\n";
  ExportLibrary(options_);
  EXPECT_FALSE(fs::exists(fs::path(options_.out_dir) / "left_over.txt"));
  EXPECT_TRUE(fs::exists(fs::path(options_.out_dir) / kExportStampFile));
  for (const auto& e : fs::directory_iterator(dir_)) {  // no staging or old folder is left
    EXPECT_NE(e.path().filename().string().rfind(".tuned.", 0), 0u) << e.path();
  }
}

TEST_F(ExportTest, CheckTellsWhetherTheExportIsStale) {
  RecordWinners();
  ExportLibrary(options_);
  ExportCheck fresh = CheckExport(options_);
  EXPECT_EQ(fresh.entries, std::size(kProblems));
  EXPECT_EQ(fresh.stale, std::vector<std::string>{});

  // A faster config of the first problem measured after the export.
  Problem problem = Problem::Parse(kProblems[0]);
  SpaceSpec spec = SpaceSpec::Load(options_.templates_dir, "gemm/tiled");
  std::vector<Config> configs = BoundSpace(spec, problem, device_).Enumerate();
  const Config& faster = configs[1];
  {
    results_db::Store store = results_db::Store::Open(db_);
    int64_t device_id =
        store.UpsertDevice({"opencl", device_.name, device_.vendor, device_.driver_version,
                            device_.arch, DeviceLimitsToJson(device_.limits)});
    int64_t run = store.BeginRun("export_test", BEAST_VERSION);
    results_db::MeasurementRecord m;
    m.run_id = run;
    m.device_id = device_id;
    m.problem_id = store.UpsertProblem(problem.Key(), problem.OpName(), problem.Flops());
    m.config_id = store.UpsertConfig(store.UpsertTemplate(spec.name, spec.hash, spec.source_rel),
                                     faster.Key(), faster.Hash(), faster.ToJson());
    m.status = "ok";
    m.samples_ms = {0.5};
    m.median_ms = 0.5;
    store.RecordMeasurement(m);
    store.FinishRun(run, "finished");
  }
  const std::string exported = configs[configs.size() / 2].Key();
  ExportCheck stale = CheckExport(options_);
  EXPECT_EQ(stale.stale, std::vector<std::string>{problem.Key() + " on " + device_.name +
                                                  ": exported gemm/tiled " + exported +
                                                  " (1 ms), the database's best is now gemm/tiled " +
                                                  faster.Key() + " (0.5 ms)"});
  testing::CommandResult cli = RunCommand(testing::BeastBinary() + " export --check " +
                                          options_.out_dir + " --db " + db_);
  EXPECT_EQ(cli.exit_code, 3) << cli.output;
  EXPECT_EQ(cli.output, options_.out_dir + " is stale against " + db_ + ":\n  " + stale.stale[0] +
                            "\n");

  ExportLibrary(options_);  // exporting again makes it current
  EXPECT_EQ(CheckExport(options_).stale, std::vector<std::string>{});
  cli = RunCommand(testing::BeastBinary() + " export --check " + dir_.string() + " --db " + db_);
  EXPECT_EQ(cli.exit_code, 2);  // a bad argument
  EXPECT_EQ(cli.output,
            "beast export: " + dir_.string() + " is not a beast export (no .beast-export in it)\n");
}

TEST_F(ExportTest, RefusesAnEmptyDatabase) {
  results_db::Store::Open(db_);
  try {
    ExportLibrary(options_);
    FAIL() << "exported an empty database";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDatabase);
    EXPECT_EQ(std::string(e.what()), db_ + ": no ok measurement to export");
  }
  EXPECT_FALSE(fs::exists(options_.out_dir));
}

TEST_F(ExportTest, RefusesATemplateThatChangedSinceItWasTuned) {
  RecordWinners("gemm/tiled");
  std::string now = SpaceSpec::Load(options_.templates_dir, "gemm/tiled").hash;
  try {
    ExportLibrary(options_);
    FAIL() << "exported a changed template";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadInput);
    EXPECT_EQ(std::string(e.what()),
              "template gemm/tiled changed since it was tuned (hash "
              "0123456789abcdef in the database, " +
                  now + " now): re-tune");
  }
  EXPECT_FALSE(fs::exists(options_.out_dir));
}

TEST_F(ExportTest, RefusesAFolderThatIsNotAnExport) {
  RecordWinners();
  fs::create_directories(options_.out_dir);
  std::ofstream(fs::path(options_.out_dir) / "notes.txt") << "mine\n";
  try {
    ExportLibrary(options_);
    FAIL() << "wrote into a foreign folder";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    EXPECT_EQ(std::string(e.what()), options_.out_dir + " exists and is not a beast export (no " +
                                         kExportStampFile + " in it): choose another --out");
  }
  EXPECT_TRUE(fs::exists(fs::path(options_.out_dir) / "notes.txt"));
}

}  // namespace
}  // namespace beast
