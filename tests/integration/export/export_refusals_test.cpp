// beast export's refusals and what it leaves out: an empty database, a
// changed template, a foreign folder, a database or templates inside the
// folder an export replaces, a shape past the C API's int sizes; rows
// imported from Kernel Tuner are skipped with a line, not fatal; and
// --check --json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "support/export_fixture.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::JsonOf;
using testing::RunCommand;

using ExportRefusals = testing::ExportFixture;

TEST_F(ExportRefusals, RefusesAnEmptyDatabase) {
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

TEST_F(ExportRefusals, RefusesATemplateThatChangedSinceItWasTuned) {
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

TEST_F(ExportRefusals, RefusesAFolderThatIsNotAnExport) {
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

// A database holding Kernel Tuner results (beast import) exports its own
// winners: the imported rows (problem kt:vector_add:100, which is no
// problem of beast's) are skipped with one line each, and --check reads it.
TEST_F(ExportRefusals, ImportedRowsAreSkippedAndTheRestExported) {
  RecordWinners();
  const testing::CommandResult import =
      RunCommand(BeastBinary() +
                 " import --kernel-tuner " BEAST_TEST_SOURCE_DIR
                 "/tests/data/kernel_tuner/test_test_cache_file.json --db " +
                 db_);
  ASSERT_EQ(import.exit_code, 0) << import.output;
  const ExportSummary summary = ExportLibrary(options_);
  EXPECT_EQ(summary.entries.size(), testing::kTunedProblems.size());
  EXPECT_EQ(summary.skipped,
            std::vector<std::string>{
                "kt:vector_add:100 on kernel_tuner device NVIDIA RTX A4000: results of backend "
                "kernel_tuner (imported) are not kernels of beast's templates"});
  const ExportCheck check = CheckExport(options_);
  EXPECT_EQ(check.entries, testing::kTunedProblems.size());
  EXPECT_EQ(check.stale, std::vector<std::string>{});
}

// An export replaces its folder whole: a database or templates kept in it
// would be deleted with the previous export.
TEST_F(ExportRefusals, RefusesADatabaseOrTemplatesInsideTheFolder) {
  RecordWinners();
  ExportLibrary(options_);
  const std::string inside = options_.out_dir + "/beast.db";
  fs::copy_file(db_, inside);
  ExportOptions o = options_;
  o.db_path = inside;
  try {
    ExportLibrary(o);
    FAIL() << "exported over its own database";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    EXPECT_EQ(std::string(e.what()), "the database " + inside + " lies inside --out " +
                                         options_.out_dir +
                                         ", which an export replaces whole: choose another --out");
  }
  EXPECT_TRUE(fs::exists(inside));
  // The same through a link to the folder.
  const std::string link = (dir_ / "link").string();
  fs::create_directory_symlink(options_.out_dir, link);
  o.db_path = link + "/beast.db";
  EXPECT_THROW(ExportLibrary(o), Error);
  EXPECT_TRUE(fs::exists(inside));
  o = options_;
  o.templates_dir = options_.out_dir + "/templates";
  try {
    ExportLibrary(o);
    FAIL() << "exported over its templates";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    EXPECT_EQ(std::string(e.what()), "the templates folder " + o.templates_dir +
                                         " lies inside --out " + options_.out_dir +
                                         ", which an export replaces whole: choose another --out");
  }
}

// Every size of a problem fits an int (Problem::Parse refuses more), but an
// output extent need not: H + 2 x pad here is 4e9.
TEST_F(ExportRefusals, RefusesAShapePastTheCApisIntSizes) {
  RecordWinners();
  ExportOptions o = options_;
  o.requested = {"conv2d:N=1,C=1,H=2000000000,W=1,K=1,R=1,S=1,pad_h=1000000000,layout=NCHW"};
  try {
    ExportLibrary(o);
    FAIL() << "served a shape no caller can name";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    const std::string what = e.what();
    EXPECT_NE(what.find(": P=4000000000 is more than the library's C API can be called with "
                        "(its sizes are int, at most 2147483647)"),
              std::string::npos)
        << what;
  }
  EXPECT_FALSE(fs::exists(options_.out_dir));
}

TEST_F(ExportRefusals, CheckPrintsJsonWhenAsked) {
  RecordWinners();
  ExportLibrary(options_);
  const std::string command = BeastBinary() + " export --check " + options_.out_dir + " --db " +
                              db_ + " --templates " + options_.templates_dir + " --json";
  testing::CommandResult fresh = RunCommand(command);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.output;
  const nlohmann::json up = JsonOf(fresh.output);
  EXPECT_EQ(up["out"], options_.out_dir);
  EXPECT_EQ(up["db"], db_);
  EXPECT_EQ(up["entries"], testing::kTunedProblems.size());
  EXPECT_EQ(up["up_to_date"], true);
  EXPECT_EQ(up["stale"], nlohmann::json::array());
  // A faster config of the first problem measured after the export.
  const std::string problem = Problem::Parse(testing::kTunedProblems[0]).Key();
  Record(problem, Configs(problem)[1], 0.5);
  testing::CommandResult stale = RunCommand(command);
  EXPECT_EQ(stale.exit_code, 3) << stale.output;
  const nlohmann::json down = JsonOf(stale.output);
  EXPECT_EQ(down["up_to_date"], false);
  EXPECT_EQ(down["stale"].size(), 1u) << stale.output;
  EXPECT_EQ(down["stale"][0].get<std::string>().rfind(problem + " on ", 0), 0u) << stale.output;
}

}  // namespace
}  // namespace beast
