// beast tune with the program cache and the compile pool on PoCL: a second run
// into another database with the same cache compiles nothing and its results
// are valid; damaged entries are rebuilt; --no-cache and --compile-jobs 0
// work; a cache directory that cannot hold files is one line and writes
// nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;
using testing::SqlCount;
using testing::SqlRows;

class ProgramCacheTune : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("program_cache_tune"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // A small run: 8 configs of gemm/tiled, 3 timed repetitions each.
  testing::CommandResult Tune(const std::string& db, const std::string& extra) {
    return RunCommand(BeastBinary() +
                          " tune --template gemm/tiled --problem gemm:M=24,N=32,K=40 --device "
                          "opencl:0 --max-configs 8 --max-reps 3 --baselines none --confirm-top 0 "
                          "--quiet --json --db " +
                          db + " " + extra,
                      false);
  }

  // The integer NAME of a JSON summary; -1 when absent.
  static long Field(const std::string& output, const std::string& name) {
    const nlohmann::json summary = testing::JsonOf(output);
    return summary.is_object() && summary.contains(name) && summary[name].is_number()
               ? summary[name].get<long>()
               : -1;
  }

  // Every measurement is ok with samples, a positive median and a small error.
  static void ExpectValid(const std::string& db) {
    EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), 8);
    EXPECT_EQ(SqlCount(db,
                       "SELECT count(*) FROM measurements WHERE status = 'ok' AND median_ms > 0 "
                       "AND samples_json != '[]' AND max_error IS NOT NULL AND compile_ms > 0"),
              8)
        << ::testing::PrintToString(SqlRows(db, "SELECT status, error_text FROM measurements"));
  }

  fs::path dir_;
};

TEST_F(ProgramCacheTune, ASecondRunIntoAnotherDatabaseCompilesNothing) {
  const std::string cache = Path("cache");
  auto first = Tune(Path("a.db"), "--cache-dir " + cache);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(Field(first.output, "programs_compiled"), 8) << first.output;
  EXPECT_EQ(Field(first.output, "programs_from_cache"), 0);
  EXPECT_EQ(Field(first.output, "compile_jobs"), static_cast<long>(sysconf(_SC_NPROCESSORS_ONLN)));
  ExpectValid(Path("a.db"));

  auto second = Tune(Path("b.db"), "--cache-dir " + cache);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(Field(second.output, "programs_compiled"), 0) << second.output;
  EXPECT_EQ(Field(second.output, "programs_from_cache"), 8);
  EXPECT_EQ(testing::JsonOf(second.output)["compile_seconds"], 0) << second.output;
  ExpectValid(Path("b.db"));
  // The same configs, each with the compile time of the build that made its
  // entry.
  const std::string configs =
      "SELECT c.config_key, m.compile_ms FROM measurements m JOIN configs c ON c.id = m.config_id "
      "ORDER BY c.config_key";
  EXPECT_EQ(SqlRows(Path("a.db"), configs), SqlRows(Path("b.db"), configs));
  EXPECT_EQ(SqlCount(Path("b.db"),
                     "SELECT count(*) FROM measurements WHERE build_log LIKE "
                     "'beast: program loaded from the program cache%'"),
            8);
}

TEST_F(ProgramCacheTune, WithoutAPoolTheDeviceWorkerFillsTheCache) {
  const std::string cache = Path("cache");
  auto first = Tune(Path("a.db"), "--cache-dir " + cache + " --compile-jobs 0");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(Field(first.output, "compile_jobs"), 0);
  EXPECT_EQ(Field(first.output, "programs_compiled"), 8);
  ExpectValid(Path("a.db"));
  auto second = Tune(Path("b.db"), "--cache-dir " + cache + " --compile-jobs 1");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(Field(second.output, "compile_jobs"), 1);
  EXPECT_EQ(Field(second.output, "programs_compiled"), 0);
  EXPECT_EQ(Field(second.output, "programs_from_cache"), 8);
  ExpectValid(Path("b.db"));
}

TEST_F(ProgramCacheTune, DamagedEntriesAreBuiltAgain) {
  const std::string cache = Path("cache");
  ASSERT_EQ(Tune(Path("a.db"), "--cache-dir " + cache).exit_code, 0);
  int damaged = 0;
  for (const auto& entry : fs::directory_iterator(cache)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc)
        << bytes.substr(0, bytes.size() / 2);  // what a crash mid-write would leave
    ++damaged;
  }
  EXPECT_GE(damaged, 8);
  auto again = Tune(Path("b.db"), "--cache-dir " + cache);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(Field(again.output, "programs_compiled"), 8) << again.output;
  EXPECT_EQ(Field(again.output, "programs_from_cache"), 0);
  ExpectValid(Path("b.db"));
  // And they are whole again.
  auto third = Tune(Path("c.db"), "--cache-dir " + cache);
  EXPECT_EQ(Field(third.output, "programs_from_cache"), 8) << third.output;
}

TEST_F(ProgramCacheTune, NoCacheBuildsEverythingAndWritesNoCache) {
  auto r = Tune(Path("a.db"), "--no-cache");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(testing::JsonOf(r.output)["cache_dir"].is_null()) << r.output;
  EXPECT_EQ(Field(r.output, "compile_jobs"), 0);
  EXPECT_EQ(Field(r.output, "programs_compiled"), 8);
  EXPECT_EQ(Field(r.output, "programs_from_cache"), 0);
  ExpectValid(Path("a.db"));
}

// Without --cache-dir: $BEAST_CACHE_DIR (set but empty: no cache), else
// $XDG_CACHE_HOME/beast/programs, else ~/.cache/beast/programs. (Moving
// XDG_CACHE_HOME or HOME moves PoCL's kernel cache too: one cold build each,
// no compile workers.)
TEST_F(ProgramCacheTune, TheDefaultCacheIsBeastCacheDirThenXdgThenHome) {
  auto cache_dir = [&](const std::string& env, const std::string& db) {
    auto r = RunCommand(env + " " + BeastBinary() +
                            " tune --template gemm/tiled --problem gemm:M=24,N=32,K=40 --device "
                            "opencl:0 --max-configs 1 --max-reps 1 --baselines none "
                            "--confirm-top 0 --compile-jobs 0 --quiet --json --db " +
                            Path(db),
                        false);
    EXPECT_EQ(r.exit_code, 0) << env << "\n" << r.output;
    const nlohmann::json summary = testing::JsonOf(r.output);
    return summary["cache_dir"].is_string() ? summary["cache_dir"].get<std::string>() : "(none)";
  };
  // BEAST_CACHE_DIR comes before XDG_CACHE_HOME, set or empty.
  const std::string xdg = " XDG_CACHE_HOME=" + Path("xdg");
  EXPECT_EQ(cache_dir("BEAST_CACHE_DIR=" + Path("own") + xdg, "a.db"), Path("own"));
  EXPECT_EQ(cache_dir("BEAST_CACHE_DIR=" + xdg, "b.db"), "(none)");
  EXPECT_EQ(cache_dir("env -u BEAST_CACHE_DIR XDG_CACHE_HOME=" + Path("xdg"), "c.db"),
            Path("xdg") + "/beast/programs");
  EXPECT_EQ(cache_dir("env -u BEAST_CACHE_DIR -u XDG_CACHE_HOME HOME=" + Path("home"), "d.db"),
            Path("home") + "/.cache/beast/programs");
  // A relative XDG_CACHE_HOME is not one (the XDG spec); PoCL's cache may
  // follow it, so the run starts in the test's folder.
  EXPECT_EQ(cache_dir("cd " + dir_.string() +
                          " && env -u BEAST_CACHE_DIR XDG_CACHE_HOME=relative HOME=" + Path("home"),
                      "e.db"),
            Path("home") + "/.cache/beast/programs");
  EXPECT_TRUE(fs::is_directory(Path("own")));
  EXPECT_TRUE(fs::is_directory(Path("xdg") + "/beast/programs"));
  EXPECT_TRUE(fs::is_directory(Path("home") + "/.cache/beast/programs"));
}

TEST_F(ProgramCacheTune, AnUnusableCacheDirectoryIsOneLineAndWritesNothing) {
  std::ofstream(Path("file")) << "x";
  auto r = Tune(Path("a.db"), "--cache-dir " + Path("file") + "/cache");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "");  // stdout
  auto merged =
      RunCommand(BeastBinary() + " tune --template gemm/tiled --problem gemm:M=24,N=32,K=40 --db " +
                 Path("a.db") + " --cache-dir " + Path("file") + "/cache");
  EXPECT_EQ(merged.exit_code, 1);
  EXPECT_EQ(merged.output, "beast tune: cannot use the program cache directory " + Path("file") +
                               "/cache: Not a directory\n");
  EXPECT_FALSE(fs::exists(Path("a.db")));
}

TEST_F(ProgramCacheTune, ConflictingOptionsAreUsageErrors) {
  auto both = RunCommand(BeastBinary() +
                         " tune --template gemm/tiled --problem gemm:M=24,N=32,K=40"
                         " --no-cache --cache-dir x --db " +
                         Path("a.db"));
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.output, "beast tune: --cache-dir and --no-cache exclude each other\n");
  auto pool = RunCommand(BeastBinary() +
                         " tune --template gemm/tiled --problem gemm:M=24,N=32,K=40"
                         " --no-cache --compile-jobs 2 --db " +
                         Path("a.db"));
  EXPECT_EQ(pool.exit_code, 2);
  EXPECT_EQ(pool.output, "beast tune: --compile-jobs needs the program cache (drop --no-cache)\n");
  auto empty_env =
      RunCommand("BEAST_CACHE_DIR= " + BeastBinary() + " tune --compile-jobs 2 --db " +
                 Path("a.db") + " --template gemm/tiled --problem gemm:M=24,N=32,K=40");
  EXPECT_EQ(empty_env.exit_code, 2);
  EXPECT_EQ(empty_env.output,
            "beast tune: --compile-jobs needs the program cache (BEAST_CACHE_DIR is set empty)\n");
  auto empty_option =
      RunCommand(BeastBinary() + " tune --compile-jobs 2 --cache-dir '' --db " + Path("a.db") +
                 " --template gemm/tiled --problem gemm:M=24,N=32,K=40");
  EXPECT_EQ(empty_option.exit_code, 2);
  EXPECT_EQ(empty_option.output,
            "beast tune: --compile-jobs needs the program cache (--cache-dir is empty)\n");
  auto nowhere = RunCommand("env -u BEAST_CACHE_DIR -u XDG_CACHE_HOME -u HOME " + BeastBinary() +
                            " tune --compile-jobs 2 --db " + Path("a.db") +
                            " --template gemm/tiled --problem gemm:M=24,N=32,K=40");
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_EQ(nowhere.output,
            "beast tune: --compile-jobs needs the program cache (set BEAST_CACHE_DIR or HOME)\n");
  auto negative = RunCommand(BeastBinary() +
                             " tune --template gemm/tiled --problem gemm:M=24,N=32,K=40"
                             " --compile-jobs -1 --db " +
                             Path("a.db"));
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_EQ(negative.output, "beast tune: --compile-jobs must not be negative\n");
  EXPECT_FALSE(fs::exists(Path("a.db")));
}

}  // namespace
}  // namespace beast
