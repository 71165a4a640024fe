// beast export end to end: a database of winners on the OpenCL CPU device is
// exported, the project is configured, built and installed with CMake from
// scratch, and a separate consumer project (export_consumer/) finds it with
// find_package and checks every tuned problem against a CPU reference; a
// re-export, --check and --device. (Refusals: export_refusals_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "beast/core/error.hpp"
#include "support/export_fixture.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::CountOccurrences;
using testing::RunCommand;

// Shapes the consumer calls that were not all tuned, named to the export:
// two get the winner of their nearest tuned problem, one (ONNX's
// pytorch-converted/test_Conv2d) too, two stay on the generic kernel, one is
// tuned exactly. export_consumer/dispatch.c checks what each runs.
const std::vector<std::string> kRequested = {
    "gemm:M=60,N=48,K=40,dtype=f32",
    "conv2d:N=1,C=3,H=12,W=12,K=5,R=3,S=3,stride=2,pad=1,layout=NCHW,dtype=f32",
    "conv2d:N=2,C=3,H=7,W=5,K=4,R=3,S=2,bias=1,layout=NCHW,dtype=f32",
    "gemm:M=64,N=60,K=64,transB=1,dtype=f32",
    "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,layout=NHWC,dtype=f32",
    "gemm:M=64,N=48,K=40,dtype=f32",
};
// The "ok" lines the consumer prints when every check passes.
constexpr size_t kConsumerChecks = 146;

class ExportTest : public testing::ExportFixture {
 protected:
  // Draws 30 shapes (even: conv2d, odd: gemm) over every feature of the
  // problem structs, records a winner for every other pair of them (those
  // whose template has a valid config) and writes them for the consumer's
  // random_shapes.c, after an "entries" line that the caller fills in
  // (returned as the text after it); adds the winners to *winners.
  std::string RandomShapes(std::map<std::string, std::string>* winners) {
    std::mt19937_64 random(12345);
    auto pick = [&random](int n) { return static_cast<int>(random() % static_cast<uint64_t>(n)); };
    std::string lines;
    for (int i = 0; i < 30; ++i) {
      std::vector<int> v;
      std::string key;
      // Tuned conv2d shapes are NCHW (kRequested[4] is the NHWC shape with no
      // tuned problem of its kind) with 16 to 24 channels in and out per group, so that none is
      // nearer to kRequested's shapes than the tuned problems dispatch.c expects them to get.
      const bool tune = i / 2 % 2 == 0;
      if (i % 2 == 0) {
        const int nhwc = tune ? 0 : pick(2), channels = tune ? 16 : 1, span = tune ? 8 : 4;
        const int groups = 1 + pick(3), n = 1 + pick(2), c = groups * (channels + pick(span));
        const int h = 3 + pick(9), w = 3 + pick(9), k = groups * (channels + pick(span + 1));
        const int r = 1 + pick(3), s = 1 + pick(3), sh = 1 + pick(2), sw = 1 + pick(2);
        const int ph = pick(2), pw = pick(2), bias = pick(2);
        int dilation = 1 + pick(2);
        if (h + 2 * ph < dilation * (r - 1) + 1 || w + 2 * pw < dilation * (s - 1) + 1)
          dilation = 1;
        v = {n, c, h, w, k, r, s, sh, sw, ph, pw, dilation, dilation, groups, nhwc, bias};
        key = "conv2d:N=" + std::to_string(n) + ",C=" + std::to_string(c) +
              ",H=" + std::to_string(h) + ",W=" + std::to_string(w) + ",K=" + std::to_string(k) +
              ",R=" + std::to_string(r) + ",S=" + std::to_string(s) +
              ",stride_h=" + std::to_string(sh) + ",stride_w=" + std::to_string(sw) +
              ",pad_h=" + std::to_string(ph) + ",pad_w=" + std::to_string(pw) +
              ",dilation=" + std::to_string(dilation) + ",groups=" + std::to_string(groups) +
              (bias ? ",bias=1" : "") + ",layout=" + (nhwc ? "NHWC" : "NCHW");
      } else {
        const int m = 1 + pick(70), n = 1 + pick(70), k = 1 + pick(70);
        // Tuned gemm shapes are column-major: kRequested's are row-major.
        const int ta = pick(2), tb = pick(2), col = tune ? 1 : pick(2);
        v = {m, n, k, ta, tb, col};
        key = "gemm:M=" + std::to_string(m) + ",N=" + std::to_string(n) +
              ",K=" + std::to_string(k) + ",transA=" + std::to_string(ta) +
              ",transB=" + std::to_string(tb) + (col ? ",layout=col" : "");
      }
      const Problem problem = Problem::Parse(key);
      std::string template_name = "-";
      if (tune) {
        std::vector<Config> configs = Configs(key);
        if (!configs.empty()) {
          const Config& winner = configs[configs.size() / 2];
          Record(key, winner, 1.0);
          (*winners)[problem.Key()] = winner.Key();
          template_name = TemplateOf(problem);
        }
      }
      lines += std::string(template_name == "-" ? "untuned" : "tuned") +
               (i % 2 == 0 ? " conv" : " gemm");
      for (int x : v) lines += " " + std::to_string(x);
      lines += " " + template_name + "\n";
    }
    return lines;
  }
};

TEST_F(ExportTest, ExportBuildsInstallsAndRunsInAConsumer) {
  std::map<std::string, std::string> winners = RecordWinners();
  const std::string vector_winner = RecordVectorWinner();
  winners[Problem::Parse(testing::kVectorProblem).Key()] = vector_winner;
  const size_t fixed_winners = winners.size();
  const std::string random_shapes = RandomShapes(&winners);
  const size_t random_tuned = winners.size() - fixed_winners;
  EXPECT_EQ(CountOccurrences("\n" + random_shapes, "\ntuned gemm "), 6u) << random_shapes;
  EXPECT_EQ(CountOccurrences("\n" + random_shapes, "\ntuned conv "), 8u) << random_shapes;
  // Two gemm shapes drawn to be tuned are too small for any tile the soft constraints allow.
  EXPECT_EQ(random_tuned, 14u);
  options_.requested = kRequested;
  ExportSummary summary = ExportLibrary(options_);
  ASSERT_EQ(summary.entries.size(), 9u + random_tuned);
  std::ofstream(dir_ / "random_shapes.txt") << "entries " << summary.entries.size() << "\n"
                                            << random_shapes;
  std::map<std::string, std::string> exact;
  std::map<std::string, std::pair<std::string, std::string>> nearest;  // -> source, config
  for (const ExportEntry& e : summary.entries) {
    (e.nearest ? nearest[e.problem_key].second : exact[e.problem_key]) = e.config_key;
    if (e.nearest) nearest[e.problem_key].first = e.source_problem;
    EXPECT_EQ(e.device_name, device_.name);
    EXPECT_EQ(e.median_ms, 1.0);
  }
  EXPECT_EQ(exact, winners);
  const std::string g1 = Problem::Parse(testing::kTunedProblems[0]).Key();
  const std::string c1 = Problem::Parse(testing::kTunedProblems[3]).Key();
  auto key = [](const std::string& text) { return Problem::Parse(text).Key(); };
  EXPECT_EQ(nearest, (std::map<std::string, std::pair<std::string, std::string>>{
                         {key(kRequested[0]), {g1, winners[g1]}},
                         {key(kRequested[1]), {c1, winners[c1]}},
                         // kTunedProblems[4] is nearer, but its winner's tile is more
                         // than twice the shape (a soft constraint): dispatch.c.
                         {key(kRequested[2]), {c1, winners[c1]}}}));
  // The constraint that turns the vector winner down, as FILE:LINE.
  const std::string space_file = options_.templates_dir + "/gemm/tiled.space.yaml";
  std::ifstream space(space_file);
  std::string vector_rule, line;
  for (int number = 1; vector_rule.empty() && std::getline(space, line); ++number) {
    if (line == "  - expr: N % VWN == 0") vector_rule = space_file + ":" + std::to_string(number);
  }
  const std::string on = " on " + device_.name + " (" + device_.driver_version + "): ";
  EXPECT_EQ(summary.generic,
            (std::vector<std::string>{
                key(kRequested[3]) + on +
                    "none of the 1 winners of 1 tuned problems of the same kind fits "
                    "(gemm/tiled " +
                    vector_winner + " of " + key(testing::kVectorProblem) +
                    ": violates hard constraint \"N % VWN == 0\" (" + vector_rule +
                    ")); the generic kernel runs",
                key(kRequested[4]) + on +
                    "no tuned problem of the same kind (op, layout, transpositions); the generic "
                    "kernel runs"}));
  EXPECT_EQ(summary.files, (std::vector<std::string>{".beast-export",
                                                     "CMakeLists.txt",
                                                     "README.md",
                                                     "beast_tuned.pc.in",
                                                     "cmake/BeastTunedConfig.cmake.in",
                                                     "example/example.c",
                                                     "include/beast_tuned.h",
                                                     "src/beast_context.c",
                                                     "src/beast_cuda.h",
                                                     "src/beast_cuda_context.c",
                                                     "src/beast_cuda_driver.h",
                                                     "src/beast_cuda_launch.c",
                                                     "src/beast_dispatch.c",
                                                     "src/beast_entry_failures.c",
                                                     "src/beast_errors.c",
                                                     "src/beast_generic.c",
                                                     "src/beast_host.c",
                                                     "src/beast_kernels.c",
                                                     "src/beast_launch.c",
                                                     "src/beast_prepared.c",
                                                     "src/beast_program_cache.c",
                                                     "src/beast_runtime.h",
                                                     "src/beast_table.h",
                                                     "src/beast_workspace_cache.c"}));
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
  // The installed header is strict C99 and needs no OpenCL or CUDA header.
  std::ofstream(dir_ / "c99.c") << "#include <beast_tuned.h>\nint main(void) { return "
                                   "beast_tuned_entry_count() < 0; }\n";
  EXPECT_EQ(Shell("cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I" + prefix +
                  "/include " + (dir_ / "c99.c").string()),
            "");
  // The example the export ships, built exactly as the README says (the
  // static library through pkg-config --static, PKG_CONFIG_PATH exported),
  // runs and finds its product right.
  const std::string example = (dir_ / "beast_example").string();
  ASSERT_EQ(Shell("cd " + options_.out_dir + " && export PKG_CONFIG_PATH=" + prefix +
                  "/lib/pkgconfig && cc example/example.c $(pkg-config --static --cflags --libs "
                  "beast_tuned) -lm -o " +
                  example),
            "");
  testing::CommandResult example_run = RunCommand("BEAST_TUNED_CACHE_DIR= " + example);
  EXPECT_EQ(example_run.exit_code, 0) << example_run.output;
  EXPECT_NE(example_run.output.find("\nlargest error "), std::string::npos) << example_run.output;
  EXPECT_NE(example_run.output.find(": ok\n"), std::string::npos) << example_run.output;

  // Runs a consumer binary (command: environment then path) on the ONNX golden
  // cases and checks that every check passed; returns its "cache built=B
  // loaded=L rejected=R folder=F" line (F "off" when the folder is not used).
  auto run_consumer = [&](const std::string& what, const std::string& command) {
    testing::CommandResult run =
        RunCommand(command + " " BEAST_TEST_SOURCE_DIR "/tests/data/onnx_conv_cases.txt " +
                   (dir_ / "random_shapes.txt").string());
    EXPECT_EQ(run.exit_code, 0) << what << "\n" << run.output;
    EXPECT_EQ(CountOccurrences("\n" + run.output, "\nok "), kConsumerChecks) << what << "\n"
                                                                             << run.output;
    EXPECT_EQ(CountOccurrences(run.output, "FAIL"), 0u) << what << "\n" << run.output;
    size_t at = run.output.find("\ncache ");
    return at == std::string::npos
               ? std::string()
               : run.output.substr(at + 1, run.output.find('\n', at + 1) - at - 1);
  };
  // The program cache of the consumer runs: cold in the first, warm after.
  const std::string cache = (dir_ / "program_cache").string();
  auto cache_files = [&cache]() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(cache)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
  };

  // The consumer links the installed package, then the export as a subproject.
  const std::string source = BEAST_TEST_SOURCE_DIR "/tests/integration/export/export_consumer";
  const std::pair<std::string, std::string> ways[] = {
      {"installed", "-DCMAKE_PREFIX_PATH=" + prefix},
      {"subproject", "-DBEAST_TUNED_SOURCE_DIR=" + options_.out_dir}};
  for (const auto& [way, define] : ways) {
    const std::string consumer = (dir_ / ("consumer_" + way)).string();
    ASSERT_EQ(Shell("cmake -S " + source + " -B " + consumer + " " + define), "") << way;
    ASSERT_EQ(Shell("cmake --build " + consumer + " -j2"), "") << way;
  }
  const std::string installed = (dir_ / "consumer_installed" / "consumer").string();
  const std::string cold =
      run_consumer("installed", "BEAST_TUNED_CACHE_DIR=" + cache + " " + installed);
  // Every program is built by the first context that runs it, and loaded by the later ones.
  int built = -1, loaded = -1, rejected = -1;
  ASSERT_EQ(
      std::sscanf(cold.c_str(), "cache built=%d loaded=%d rejected=%d", &built, &loaded, &rejected),
      3)
      << cold;
  EXPECT_GT(built, 0);
  EXPECT_EQ(rejected, 0);
  EXPECT_EQ(cache_files().size(), static_cast<size_t>(built));
  const int uses = built + loaded;
  // A cache folder that cannot be made: every use compiles, nothing else changes.
  std::ofstream(dir_ / "a_file") << "not a folder\n";
  EXPECT_EQ(
      run_consumer("subproject", "BEAST_TUNED_CACHE_DIR=" + (dir_ / "a_file" / "cache").string() +
                                     " " + (dir_ / "consumer_subproject" / "consumer").string()),
      "cache built=" + std::to_string(uses) + " loaded=0 rejected=0 folder=off");

  // A folder others may write to could hold planted kernels: not used at all.
  const fs::path open_cache = dir_ / "open_cache";
  fs::create_directories(open_cache);
  fs::permissions(open_cache, fs::perms::all);
  EXPECT_EQ(run_consumer("installed, open cache folder",
                         "BEAST_TUNED_CACHE_DIR=" + open_cache.string() + " " + installed),
            "cache built=" + std::to_string(uses) + " loaded=0 rejected=0 folder=off");
  EXPECT_TRUE(fs::is_empty(open_cache));

  // A shared build, installed into a prefix chosen only at install time (as
  // the README says), found by pkg-config and linked without CMake; it runs
  // on the warm cache, compiling nothing.
  const std::string shared_build = (dir_ / "build_shared").string();
  const std::string shared_prefix = (dir_ / "prefix_shared").string();
  ASSERT_EQ(Shell("cmake -S " + options_.out_dir + " -B " + shared_build +
                  " -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_LIBDIR=lib"),
            "");
  ASSERT_EQ(Shell("cmake --build " + shared_build + " -j2"), "");
  ASSERT_EQ(Shell("cmake --install " + shared_build + " --prefix " + shared_prefix), "");
  EXPECT_EQ(RunCommand("PKG_CONFIG_PATH=" + shared_prefix +
                       "/lib/pkgconfig pkg-config --variable=libdir beast_tuned")
                .output,
            shared_prefix + "/lib/pkgconfig/../../lib\n");
  ASSERT_TRUE(fs::exists(shared_prefix + "/lib/libbeast_tuned.so"));
  const std::string consumer = (dir_ / "consumer_pkg_config").string();
  ASSERT_EQ(Shell("PKG_CONFIG_PATH=" + shared_prefix + "/lib/pkgconfig cc -std=c11 -O2 -o " +
                  consumer + " " + source + "/*.c $(PKG_CONFIG_PATH=" + shared_prefix +
                  "/lib/pkgconfig pkg-config --cflags --libs beast_tuned) -lOpenCL -lpthread -lm"),
            "");
  EXPECT_EQ(run_consumer("pkg-config", "BEAST_TUNED_CACHE_DIR=" + cache + " LD_LIBRARY_PATH=" +
                                           shared_prefix + "/lib " + consumer),
            "cache built=0 loaded=" + std::to_string(uses) + " rejected=0 folder=" + cache);

  // A damaged entry (one byte of its binary flipped) is rebuilt, never run.
  const fs::path damaged = cache_files().front();
  {
    std::fstream file(damaged, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(static_cast<std::streamoff>(fs::file_size(damaged) / 2));
    char byte = 0;
    file.read(&byte, 1);
    file.seekp(static_cast<std::streamoff>(fs::file_size(damaged) / 2));
    byte = static_cast<char>(byte ^ 0x5a);
    file.write(&byte, 1);
  }
  EXPECT_EQ(
      run_consumer("installed, damaged entry", "BEAST_TUNED_CACHE_DIR=" + cache + " " + installed),
      "cache built=1 loaded=" + std::to_string(uses - 1) + " rejected=1 folder=" + cache);
  EXPECT_EQ(cache_files().size(), static_cast<size_t>(built));  // replaced, no leftovers
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
  EXPECT_EQ(fresh.entries, testing::kTunedProblems.size());
  EXPECT_EQ(fresh.stale, std::vector<std::string>{});

  // A faster config of the first problem measured after the export.
  Problem problem = Problem::Parse(testing::kTunedProblems[0]);
  std::vector<Config> configs = Configs(problem.Key());
  const Config& faster = configs[1];
  Record(problem.Key(), faster, 0.5);
  const std::string exported = configs[configs.size() / 2].Key();
  ExportCheck stale = CheckExport(options_);
  EXPECT_EQ(stale.stale,
            std::vector<std::string>{
                problem.Key() + " on " + device_.name + ": exported gemm/tiled " + exported +
                " (1 ms), the database's best is now gemm/tiled " + faster.Key() + " (0.5 ms)"});
  testing::CommandResult cli =
      RunCommand(testing::BeastBinary() + " export --check " + options_.out_dir + " --db " + db_);
  EXPECT_EQ(cli.exit_code, 3) << cli.output;
  EXPECT_EQ(cli.output,
            options_.out_dir + " is stale against " + db_ + ":\n  " + stale.stale[0] + "\n");

  ExportLibrary(options_);  // exporting again makes it current
  EXPECT_EQ(CheckExport(options_).stale, std::vector<std::string>{});
  // An export by another beast version is stale whatever it holds.
  const fs::path stamp_file = fs::path(options_.out_dir) / kExportStampFile;
  std::ifstream in(stamp_file);
  std::string stamp((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::string version_line = "beast_version " BEAST_VERSION "\n";
  ASSERT_NE(stamp.find(version_line), std::string::npos);
  std::ofstream(stamp_file) << stamp.replace(stamp.find(version_line), version_line.size(),
                                             "beast_version 0.0.1\n");
  EXPECT_EQ(CheckExport(options_).stale,
            std::vector<std::string>{"exported by beast 0.0.1, this is beast " BEAST_VERSION
                                     ": export again"});
  ExportLibrary(options_);
  // A damaged stamp (a median that is not a number) is named with its line.
  {
    std::ifstream again(stamp_file);
    std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
    again.close();
    const size_t entry = text.find("\nentry\t") + 1;
    const size_t end = text.find('\n', entry);
    std::string line = text.substr(entry, end - entry);
    const std::string damaged = line.substr(0, line.rfind('\t') + 1) + "abc";
    std::ofstream(stamp_file) << text.replace(entry, end - entry, damaged);
    try {
      CheckExport(options_);
      FAIL() << "read a damaged stamp";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadInput);
      EXPECT_EQ(std::string(e.what()), stamp_file.string() + ": malformed entry line: " + damaged);
    }
  }
  ExportLibrary(options_);
  cli = RunCommand(testing::BeastBinary() + " export --check " + dir_.string() + " --db " + db_);
  EXPECT_EQ(cli.exit_code, 2);  // a bad argument
  EXPECT_EQ(cli.output,
            "beast export: " + dir_.string() + " is not a beast export (no .beast-export in it)\n");
}

TEST_F(ExportTest, DeviceOptionExportsOnlyThatDevicesWinnersAndCheckKeepsToThem) {
  RecordWinners();
  const std::string foreign = Problem::Parse("gemm:M=40,N=24,K=16,dtype=f32").Key();
  const Config config = Configs(foreign).at(1);
  Record(foreign, config, 1.5, "", "Foreign OpenCL Device");
  const std::string export_cli = testing::BeastBinary() + " export --db " + db_ + " --templates " +
                                 options_.templates_dir + " ";
  // A unique part of the name is enough, in any case.
  testing::CommandResult run =
      RunCommand(export_cli + "--out " + options_.out_dir + " --device 'foreign opencl'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.rfind("exported 1 tuned kernels from " + db_ + " to " + options_.out_dir +
                                 ":\n  " + foreign + "  gemm/tiled  " + config.Key() +
                                 "  on Foreign OpenCL Device (1.5 ms)\n",
                             0),
            0u)
      << run.output;
  // The check compares with that device's winners only.
  run = RunCommand(export_cli + "--check " + options_.out_dir);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output, options_.out_dir + " is up to date with " + db_ + " (1 kernels)\n");
  run = RunCommand(export_cli + "--check " + options_.out_dir + " --device foreign");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_EQ(run.output,
            "beast export: --check takes no --device (it compares with what the export was made "
            "from: its stamp)\n");
  for (const char* option : {"--problems jobs.txt", "--pytorch"}) {
    run = RunCommand(export_cli + "--check " + options_.out_dir + " " + option);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_EQ(run.output, "beast export: --check takes no " +
                              std::string(option).substr(0, std::string(option).find(' ')) +
                              " (it compares with what the export was made from: its stamp)\n");
  }
  // The library has no math mode: a math=tf32 problem to serve is refused
  // (an entry for it would be an f32 one).
  run = RunCommand(export_cli + "--out " + options_.out_dir +
                   " --problem gemm:M=64,N=64,K=64,math=tf32");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_EQ(run.output,
            "beast export: gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32,math=tf32: a math=tf32 "
            "problem (the library's API has no math mode: ask for the f32 problem)\n");
  // In a --shapes file it is named with its line.
  std::ofstream(dir_ / "shapes.txt") << "gemm:M=64,N=64,K=64\ngemm:M=64,N=64,K=64,math=tf32\n";
  run = RunCommand(export_cli + "--out " + options_.out_dir + " --shapes " +
                   (dir_ / "shapes.txt").string());
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output, "beast export: " + (dir_ / "shapes.txt").string() +
                            ":2: gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32,math=tf32: a "
                            "math=tf32 problem (the library's API has no math mode: ask for the "
                            "f32 problem)\n");
  run = RunCommand(export_cli + "--out " + options_.out_dir + " --device Nowhere");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_EQ(run.output.rfind("beast export: no device 'Nowhere' in " + db_ + " (devices: ", 0), 0u)
      << run.output;
}

}  // namespace
}  // namespace beast
