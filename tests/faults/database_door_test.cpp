// The database door, made to fail for real (issue 16): a file with a
// damaged page is refused before anything is written, naming the recovery
// command (which works); an empty file is a new database only when written;
// a directory, another program's SQLite file in WAL mode, a read-only file
// and a disk too full for a new database each get one line, exit 1, and
// leave no file behind that was not there before.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CommandResult;
using testing::CountOccurrences;
using testing::FreshTestDir;
using testing::RunCommand;

std::string Bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// What is in `dir`, names only, sorted.
std::string Listing(const fs::path& dir) {
  return RunCommand("ls -A " + dir.string() + " | tr '\\n' ' '", false).output;
}

class DatabaseDoor : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("door"); }
  void TearDown() override {
    if (mounted_) umount2(mount_.c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }

  static std::string Tune(const std::string& db, int configs = 4) {
    return BeastBinary() +
           " tune --template gemm/tiled --problem gemm:M=32,N=24,K=16 --device opencl:0 --db " +
           db + " --max-configs " + std::to_string(configs) +
           " --max-reps 3 --baselines none --no-cache --compile-jobs 0 --confirm-top 0 --quiet";
  }
  // stderr alone (stdout dropped): the one line a refused command prints.
  static CommandResult Stderr(const std::string& command) {
    return RunCommand(command + " 2>&1 >/dev/null", false);
  }
  // A small tmpfs at dir_/name; false (with skip_ set) where this process
  // may not mount.
  bool Mount(const std::string& name, const std::string& options) {
    mount_ = dir_ / name;
    fs::create_directories(mount_);
    if (mount("tmpfs", mount_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      skip_ = std::string("cannot mount a tmpfs here: ") + std::strerror(errno);
      return false;
    }
    mounted_ = true;
    return true;
  }

  fs::path dir_, mount_;
  bool mounted_ = false;
  std::string skip_;
};

TEST_F(DatabaseDoor, ADamagedPageIsRefusedBeforeAnyWriteWithTheRecoveryThatWorks) {
  const fs::path db = dir_ / "beast.db";
  ASSERT_EQ(RunCommand(Tune(db.string())).exit_code, 0);
  // The measurements table's root page gets an invalid page type.
  const long page = std::stol(
      RunCommand("sqlite3 " + db.string() +
                     " \"SELECT rootpage FROM sqlite_master WHERE name = 'measurements'\"",
                 false)
          .output);
  const long page_size =
      std::stol(RunCommand("sqlite3 " + db.string() + " 'PRAGMA page_size'", false).output);
  {
    std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((page - 1) * page_size);
    file.put('\x07');
  }
  const std::string before = Bytes(db);
  const std::string listing = Listing(dir_);
  ASSERT_EQ(listing, "beast.db ");

  for (const std::string& command : {Tune(db.string(), 8)}) {
    CommandResult refused = Stderr(command);
    EXPECT_EQ(refused.exit_code, 1) << refused.output;
    EXPECT_EQ(CountOccurrences(refused.output, "\n"), 1u) << refused.output;
    EXPECT_EQ(refused.output.rfind("beast tune: " + db.string() + " is damaged (SQLite: ", 0), 0u)
        << refused.output;
    EXPECT_NE(refused.output.find("); beast writes nothing into it. Recover what it holds with: "
                                  "sqlite3 " +
                                  db.string() + " .recover | sqlite3 " + db.string() +
                                  ".recovered, then use " + db.string() + ".recovered\n"),
              std::string::npos)
        << refused.output;
  }
  EXPECT_TRUE(Bytes(db) == before);   // not a byte written
  EXPECT_EQ(Listing(dir_), listing);  // no -wal, no -shm

  // The command the line gives gets a database beast writes into again.
  ASSERT_EQ(
      RunCommand("sqlite3 " + db.string() + " .recover | sqlite3 " + db.string() + ".recovered")
          .exit_code,
      0);
  CommandResult resumed = RunCommand(Tune(db.string() + ".recovered", 8));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
}

TEST_F(DatabaseDoor, AnEmptyFileIsANewDatabaseToWriteAndNoneToRead) {
  const fs::path db = dir_ / "empty.db";
  std::ofstream(db).close();
  CommandResult read = Stderr(BeastBinary() + " query --db " + db.string());
  EXPECT_EQ(read.exit_code, 1);
  EXPECT_EQ(read.output,
            "beast query: " + db.string() + " is an empty file, not a beast database\n");
  EXPECT_EQ(fs::file_size(db), 0u);
  EXPECT_EQ(Listing(dir_), "empty.db ");

  CommandResult written = RunCommand(Tune(db.string()));
  EXPECT_EQ(written.exit_code, 0) << written.output;
  EXPECT_EQ(
      RunCommand("sqlite3 " + db.string() + " 'SELECT count(*) FROM measurements'", false).output,
      "4\n");
}

TEST_F(DatabaseDoor, ADirectoryGetsOneLineFromEveryVerb) {
  const fs::path folder = dir_ / "results";
  fs::create_directories(folder);
  for (const std::string verb : {"tune", "query"}) {
    const std::string command =
        verb == "tune" ? Tune(folder.string()) : BeastBinary() + " query --db " + folder.string();
    CommandResult refused = Stderr(command);
    EXPECT_EQ(refused.exit_code, 1) << verb;
    EXPECT_EQ(refused.output,
              "beast " + verb + ": " + folder.string() + " is a directory, not a database file\n");
  }
  EXPECT_EQ(Listing(folder), "");
}

TEST_F(DatabaseDoor, AnotherProgramsWalFileIsRefusedWithNothingBesideIt) {
  const fs::path db = dir_ / "other.db";
  ASSERT_EQ(RunCommand("sqlite3 " + db.string() +
                           " 'PRAGMA journal_mode = WAL; CREATE TABLE notes (x TEXT)' >/dev/null",
                       false)
                .exit_code,
            0);
  ASSERT_EQ(Listing(dir_), "other.db ");
  for (const std::string& command :
       {Tune(db.string()), BeastBinary() + " query --db " + db.string()}) {
    CommandResult refused = Stderr(command);
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.output.find(": " + db.string() + " is not a beast database\n"),
              std::string::npos)
        << refused.output;
    EXPECT_EQ(CountOccurrences(refused.output, "\n"), 1u) << refused.output;
    EXPECT_EQ(Listing(dir_), "other.db ");  // no other.db-wal, no other.db-shm
  }
}

TEST_F(DatabaseDoor, AReadOnlyFileIsRefusedForWritingAndStillRead) {
  if (!Mount("ro", "size=1m")) GTEST_SKIP() << skip_;
  const fs::path db = mount_ / "beast.db";
  ASSERT_EQ(RunCommand(Tune(db.string())).exit_code, 0);
  ASSERT_EQ(mount("tmpfs", mount_.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, "size=1m"), 0)
      << std::strerror(errno);
  CommandResult refused = Stderr(Tune(db.string(), 8));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.output, "beast tune: " + db.string() +
                                " is read-only: tuning and importing write to the database\n");
}

TEST_F(DatabaseDoor, ADiskTooFullForANewDatabaseLeavesNothingBehind) {
  if (!Mount("full", "size=12k")) GTEST_SKIP() << skip_;
  const fs::path db = mount_ / "beast.db";
  CommandResult refused = Stderr(Tune(db.string()));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(CountOccurrences(refused.output, "\n"), 1u) << refused.output;
  EXPECT_EQ(refused.output.rfind("beast tune: " + db.string() + ": ", 0), 0u) << refused.output;
  EXPECT_NE(refused.output.find("the disk is full"), std::string::npos) << refused.output;
  EXPECT_EQ(Listing(mount_), "");
}

}  // namespace
}  // namespace beast
