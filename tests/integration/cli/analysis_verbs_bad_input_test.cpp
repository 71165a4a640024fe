// Bad input to the verbs the C++ binary hands to the Python analysis package
// (report, import, export-results): through build/beast/beast, each is one
// clear line on stderr, nothing on stdout, exit 1, and no file written — the
// launcher (beast/cli/analysis_verb.cpp) passes the child's line and code on;
// it canonicalizes a --problem filter first.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/process_watch.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

class AnalysisVerbsBadInput : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("analysis_bad"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // A beast database with one gemm/tiled measurement of parameter MWG.
  std::string Database(const std::string& name) {
    std::string path = (dir_ / name).string();
    results_db::Store s = results_db::Store::Open(path);
    results_db::DeviceRecord d;
    d.backend = beast::Backend::kOpenCL;
    d.name = "GPU";
    results_db::MeasurementRecord m;
    m.run_id = s.BeginRun("beast tune", "0.1.0");
    m.device_id = s.UpsertDevice(d);
    m.problem_id = s.UpsertProblem("gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f32", "gemm", 1024);
    m.config_id =
        s.UpsertConfig(s.UpsertTemplate("gemm/tiled", "aaaa", ""), "MWG=16", "h", R"({"MWG": 16})");
    m.median_ms = 1.0;
    s.RecordMeasurement(m);
    return path;
  }

  // Runs `beast ARGS` in dir_; expects exit 1, nothing on stdout, and returns stderr.
  std::string Fails(const std::string& args) {
    auto out =
        RunCommand("cd " + dir_.string() + " && " + BeastBinary() + " " + args + " 2>/dev/null",
                   /*merge_stderr=*/false);
    auto err =
        RunCommand("cd " + dir_.string() + " && " + BeastBinary() + " " + args + " 2>&1 >/dev/null",
                   /*merge_stderr=*/false);
    EXPECT_EQ(out.exit_code, 1) << args;
    EXPECT_EQ(out.output, "") << args;
    return err.output;
  }

  fs::path dir_;
};

TEST_F(AnalysisVerbsBadInput, FileThatIsNotADatabase) {
  Write("notes.db", std::string(4096, 'x'));
  EXPECT_EQ(Fails("report --db notes.db --out r"),
            "beast report: notes.db is not a beast database\n");
  EXPECT_EQ(Fails("export-results --db notes.db --t4 out.json"),
            "beast export-results: notes.db is not a beast database\n");
  Write("c.json", R"({"device_name": "GPU X", "kernel_name": "k", "problem_size": [8],
    "tune_params_keys": ["X"], "tune_params": {"X": [1]}, "cache": {"1": {"X": 1, "time": 2.0}}})");
  EXPECT_EQ(Fails("import --kernel-tuner c.json --db notes.db"),
            "beast import: notes.db is not a beast database\n");
  EXPECT_FALSE(fs::exists(dir_ / "r"));
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));
}

TEST_F(AnalysisVerbsBadInput, DatabaseOfANewerSchema) {
  std::string db = Database("newer.db");
  ASSERT_TRUE(testing::SqlExec(db, "PRAGMA user_version = 99"));
  std::string newer = "newer.db: database schema version 99 is newer than this beast (" +
                      std::to_string(results_db::kSchemaVersion) + "): upgrade beast\n";
  EXPECT_EQ(Fails("report --db newer.db --out r"), "beast report: " + newer);
  EXPECT_EQ(Fails("export-results --db newer.db --t4 out.json"), "beast export-results: " + newer);
  EXPECT_FALSE(fs::exists(dir_ / "r"));
}

TEST_F(AnalysisVerbsBadInput, ImportFileThatIsNotWhatItClaims) {
  Write("t4.json", R"({"schema_version": "1.0.0", "results": []})");
  EXPECT_EQ(Fails("import --kernel-tuner t4.json --db new.db"),
            "beast import: t4.json: not a Kernel Tuner cache file: it holds \"results\", as a T4 "
            "results file does, and no \"cache\"\n");
  Write("cache.json.gz", "{}");
  EXPECT_EQ(Fails("import --kernel-tuner cache.json.gz --db new.db"),
            "beast import: cache.json.gz: not a gzip file (Not a gzipped file (b'{}'))\n");
  Write("cache.json", "hello\n");
  EXPECT_EQ(Fails("import --kernel-tuner cache.json --db new.db"),
            "beast import: cache.json:1:1: not JSON: Expecting value\n");
  EXPECT_FALSE(fs::exists(dir_ / "new.db"));
}

TEST_F(AnalysisVerbsBadInput, FilterNamingAnUnknownParameter) {
  Database("beast.db");
  EXPECT_EQ(Fails("report --out r --param NOPE"),
            "beast report: --param \"NOPE\": no such parameter in beast.db (parameters: MWG)\n");
  EXPECT_FALSE(fs::exists(dir_ / "r"));
}

// --problem takes any spelling `beast query` takes (issue 22: report and
// export-results wanted the canonical key, exactly); a malformed one is
// named in one line, exit 2, before Python starts.
TEST_F(AnalysisVerbsBadInput, AProblemFilterTakesAnySpellingAndNamesAMalformedOne) {
  Database("beast.db");
  auto results = [&](const std::string& filter) {
    auto run = RunCommand("cd " + dir_.string() + " && " + BeastBinary() +
                              " export-results --force --t4 out.json --problem " + filter,
                          false);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return nlohmann::json::parse(testing::ReadFile(dir_ / "out.json"))["results"].size();
  };
  EXPECT_EQ(results("gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f32"), 1u);
  EXPECT_EQ(results("gemm:K=8,M=8,N=8"), 1u);
  // Another problem is named in its canonical spelling, with those there are.
  EXPECT_EQ(
      Fails("export-results --force --t4 out.json --problem gemm:M=8,N=8,K=16"),
      "beast export-results: --problem \"gemm:M=8,N=8,K=16,transA=0,transB=0,dtype=f32\": "
      "no such problem in beast.db (problems: gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f32)\n");
  auto err = RunCommand("cd " + dir_.string() + " && " + BeastBinary() +
                            " report --out r --problem gemm:M=8,N=8 2>&1 >/dev/null",
                        false);
  EXPECT_EQ(err.exit_code, 2);
  EXPECT_EQ(err.output, "beast report: problem \"gemm:M=8,N=8\": missing K\n");
  EXPECT_FALSE(fs::exists(dir_ / "r"));
}

// An imported Kernel Tuner problem (kt:KERNEL:SIZE, beast import's key) is a
// filter as it is: two sizes of one kernel on one device are told apart.
TEST_F(AnalysisVerbsBadInput, AnImportedProblemIsAFilterAsItIs) {
  const std::string cache =
      std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/kernel_tuner/test_test_cache_file.json";
  std::string text = testing::ReadFile(cache);
  const std::string size100 = "\"problem_size\": 100";
  const size_t at = text.find(size100);
  ASSERT_NE(at, std::string::npos);
  Write("size200.json", text.replace(at, size100.size(), "\"problem_size\": 200"));
  for (const std::string& file : {cache, (dir_ / "size200.json").string()}) {
    auto imported = RunCommand(
        BeastBinary() + " import --kernel-tuner " + file + " --db " + (dir_ / "kt.db").string(),
        false);
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
  }
  auto run = RunCommand("cd " + dir_.string() + " && " + BeastBinary() +
                            " export-results --db kt.db --t4 out.json --problem kt:vector_add:200",
                        false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFile(dir_ / "out.json"))["results"].size(), 15u);
}

}  // namespace
}  // namespace beast
