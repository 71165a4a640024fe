// A disk that fills up during a tuning run: the run stops with one line that
// says the disk is full and that a rerun resumes, every measurement recorded
// before stays in an intact database, and once there is room the same
// command finishes with exactly the configs an uninterrupted run measures
// (one is run beside it for reference).
// The full disk is a real one: a small tmpfs mounted for the test (skipped,
// saying why, where this process may not mount).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;
using testing::SqlRows;

constexpr int kConfigs = 30;

class DiskFull : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("disk_full");
    // Room for the schema and a few measurements, not for 30.
    if (mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=400k") != 0) {
      skip_reason_ = std::string("cannot mount a small tmpfs here: ") + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  void TearDown() override {
    if (mounted_) umount(dir_.c_str());
    fs::remove_all(dir_);
  }
  // Gives the tmpfs room for everything.
  bool Grow() { return mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT, "size=16m") == 0; }

  // The random strategy with a fixed seed: which configs a run measures does
  // not depend on their times, so an uninterrupted run is a reference.
  static std::string TuneCommand(const fs::path& db) {
    return BeastBinary() + " tune --template gemm/tiled --problem gemm:M=32,N=24,K=16" +
           " --device opencl:0 --db " + db.string() + " --max-configs " + std::to_string(kConfigs) +
           " --strategy random --seed 5 --max-reps 5 --baselines none --no-cache"
           " --compile-jobs 0 --confirm-top 0 --quiet";
  }
  // The config keys a database holds, sorted.
  static std::vector<std::string> ConfigKeys(const std::string& db) {
    return SqlRows(db,
                   "SELECT c.config_key FROM measurements m JOIN configs c ON c.id = m.config_id "
                   "ORDER BY c.config_key");
  }

  fs::path dir_;
  bool mounted_ = false;
  std::string skip_reason_;
};

TEST_F(DiskFull, StopsWithOneLineKeepsWhatWasRecordedAndResumes) {
  if (!mounted_) GTEST_SKIP() << skip_reason_;
  const std::string db = (dir_ / "beast.db").string();
  auto full = RunCommand(TuneCommand(db) + " 2>&1 >/dev/null", false);
  EXPECT_EQ(full.exit_code, 1) << full.output;
  EXPECT_EQ(CountOccurrences(full.output, "\n"), 1u) << full.output;
  EXPECT_EQ(full.output.rfind("beast tune: " + db + ": ", 0), 0u) << full.output;
  EXPECT_NE(full.output.find("the disk is full (database or disk is full)"), std::string::npos)
      << full.output;
  EXPECT_NE(full.output.find("every measurement recorded before it is kept: run the same command "
                             "again to resume\n"),
            std::string::npos)
      << full.output;

  ASSERT_TRUE(Grow());
  size_t kept = 0;
  {
    results_db::Store store = results_db::Store::OpenExisting(db);
    kept = store.Query({}).size();
  }
  EXPECT_GT(kept, 0u);
  std::printf("%zu of %d measurements recorded before the disk filled\n", kept, kConfigs);
  EXPECT_LT(kept, static_cast<size_t>(kConfigs));
  EXPECT_EQ(SqlRows(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});

  auto resumed = RunCommand(TuneCommand(db));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  results_db::Store store = results_db::Store::OpenExisting(db);
  std::vector<results_db::ResultRow> rows = store.Query({});
  EXPECT_EQ(rows.size(), static_cast<size_t>(kConfigs));  // each config once, none lost
  EXPECT_EQ(SqlRows(db, "SELECT status FROM runs ORDER BY id"),
            (std::vector<std::string>{"interrupted", "finished"}));

  // The same command on a disk with room, never stopped: the same configs.
  const fs::path reference_dir = testing::FreshTestDir("disk_full_reference");
  const fs::path reference = reference_dir / "beast.db";
  auto uninterrupted = RunCommand(TuneCommand(reference));
  ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.output;
  const std::vector<std::string> expected = ConfigKeys(reference.string());
  fs::remove_all(reference_dir);
  EXPECT_EQ(expected.size(), static_cast<size_t>(kConfigs));
  EXPECT_EQ(ConfigKeys(db), expected);
}

}  // namespace
}  // namespace beast
