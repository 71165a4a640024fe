// The on-disk program cache: entries come back exactly as stored, and an
// entry that is cut short, damaged, or another key's reads as absent; writes
// leave no temporary file; a directory that cannot hold files is one clear
// error; past its size limit the entries used longest ago are removed.
#include "harness/cache/program_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "beast/core/error.hpp"
#include "support/test_dir.hpp"

namespace beast::harness {
namespace {

namespace fs = std::filesystem;

class ProgramCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("program_cache"); }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static void WriteFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir_;
  ProgramKey key_{"__kernel void k() {}", "-cl-fast-relaxed-math", "dev\n1.0\nOpenCL 3.0"};
};

CachedProgram Built() {
  CachedProgram p;
  p.built = true;
  p.binary = std::string(
      "\x7f"
      "ELF\0\x01\xff binary",
      14);
  p.log = "warning: unused variable";
  p.compile_ms = 123.25;
  return p;
}

TEST_F(ProgramCacheTest, CreatesTheDirectoryAndGivesBackWhatWasStored) {
  ProgramCache cache((dir_ / "a" / "b").string());
  EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b"));
  EXPECT_FALSE(cache.Load(key_).has_value());
  ASSERT_TRUE(cache.Store(key_, Built()));
  std::optional<CachedProgram> back = cache.Load(key_);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->built);
  EXPECT_EQ(back->binary, Built().binary);
  EXPECT_EQ(back->log, "warning: unused variable");
  EXPECT_EQ(back->compile_ms, 123.25);
  EXPECT_EQ(cache.PathOf(key_), (dir_ / "a" / "b").string() + "/" + key_.Hash() + ".clprog");
  // Exactly the entry: the temporary file was renamed, nothing else is left.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "a" / "b"), fs::directory_iterator()), 1);
}

TEST_F(ProgramCacheTest, AFailedBuildIsStoredWithItsLog) {
  ProgramCache cache(dir_.string());
  CachedProgram failed;
  failed.log = "1:2: error: expected ';'";
  failed.compile_ms = 7;
  ASSERT_TRUE(cache.Store(key_, failed));
  std::optional<CachedProgram> back = cache.Load(key_);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->built);
  EXPECT_EQ(back->binary, "");
  EXPECT_EQ(back->log, "1:2: error: expected ';'");
  EXPECT_EQ(back->compile_ms, 7);
}

TEST_F(ProgramCacheTest, EveryFieldOfTheKeyCounts) {
  ProgramCache cache(dir_.string());
  ASSERT_TRUE(cache.Store(key_, Built()));
  ProgramKey other_source = key_, other_options = key_, other_compiler = key_;
  other_source.source += " ";
  other_options.options = "";
  other_compiler.compiler = "dev\n1.1\nOpenCL 3.0";
  for (const ProgramKey& k : {other_source, other_options, other_compiler}) {
    EXPECT_NE(k.Hash(), key_.Hash());
    EXPECT_FALSE(cache.Load(k).has_value());
  }
  // Fields are length-prefixed: moving text from one field to the next is
  // another key.
  ProgramKey a{"ab", "c", "x"}, b{"a", "bc", "x"};
  EXPECT_NE(a.Hash(), b.Hash());
}

TEST_F(ProgramCacheTest, AnEntryOfAnotherKeyUnderThisNameReadsAsAbsent) {
  // What a hash collision would look like: the file holds another key.
  ProgramCache cache(dir_.string());
  ProgramKey other = key_;
  other.source = "__kernel void other() {}";
  ASSERT_TRUE(cache.Store(other, Built()));
  fs::copy_file(cache.PathOf(other), cache.PathOf(key_));
  EXPECT_TRUE(cache.Load(other).has_value());
  EXPECT_FALSE(cache.Load(key_).has_value());
}

TEST_F(ProgramCacheTest, CutShortOrDamagedEntriesReadAsAbsent) {
  ProgramCache cache(dir_.string());
  ASSERT_TRUE(cache.Store(key_, Built()));
  const std::string path = cache.PathOf(key_);
  const std::string whole = ReadFile(path);
  for (size_t keep : {size_t{0}, size_t{5}, size_t{8}, whole.size() / 2, whole.size() - 1}) {
    WriteFile(path, whole.substr(0, keep));
    EXPECT_FALSE(cache.Load(key_).has_value()) << "cut to " << keep << " bytes";
  }
  for (size_t at : {size_t{0}, size_t{8}, size_t{20}, whole.size() - 20, whole.size() - 1}) {
    std::string damaged = whole;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x01);
    WriteFile(path, damaged);
    EXPECT_FALSE(cache.Load(key_).has_value()) << "byte " << at << " flipped";
  }
  WriteFile(path, whole + "x");
  EXPECT_FALSE(cache.Load(key_).has_value());
  WriteFile(path, whole);
  EXPECT_TRUE(cache.Load(key_).has_value());
}

TEST_F(ProgramCacheTest, StoringAgainReplacesTheEntry) {
  ProgramCache cache(dir_.string());
  ASSERT_TRUE(cache.Store(key_, Built()));
  CachedProgram newer = Built();
  newer.binary = "another binary";
  newer.compile_ms = 5;
  ASSERT_TRUE(cache.Store(key_, newer));
  std::optional<CachedProgram> back = cache.Load(key_);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->binary, "another binary");
  EXPECT_EQ(back->compile_ms, 5);
}

TEST_F(ProgramCacheTest, TemporariesOfKilledWritersAreRemovedWhenOld) {
  fs::create_directories(dir_);
  const fs::path old_temp = dir_ / ".tmp-0123456789abcdef-99-0";
  const fs::path new_temp = dir_ / ".tmp-0123456789abcdef-99-1";
  const fs::path other = dir_ / "notes.txt";
  for (const fs::path& p : {old_temp, new_temp, other}) WriteFile(p.string(), "half");
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(old_temp, two_hours_ago);
  fs::last_write_time(other, two_hours_ago);
  ProgramCache cache(dir_.string());
  EXPECT_FALSE(fs::exists(old_temp));
  EXPECT_TRUE(fs::exists(new_temp));  // a writer may still be at it
  EXPECT_TRUE(fs::exists(other));     // not the cache's to remove
}

TEST_F(ProgramCacheTest, ADirectoryThatCannotHoldFilesIsOneClearError) {
  fs::create_directories(dir_);
  WriteFile((dir_ / "plain-file").string(), "x");
  const std::string below_a_file = (dir_ / "plain-file" / "cache").string();
  try {
    ProgramCache cache(below_a_file);
    FAIL() << "a cache below a plain file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kEnvironment);
    EXPECT_EQ(std::string(e.what()).rfind(
                  "cannot use the program cache directory " + below_a_file + ": ", 0),
              0u)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  // /proc refuses new files even to root.
  EXPECT_THROW(ProgramCache("/proc/beast-cache"), Error);
  EXPECT_THROW(ProgramCache(""), Error);
}

// An entry is a binary the device worker runs as a config's kernel: the
// folder is made private (0700), one of ours others may write to loses their
// write permission, and another user's is refused.
TEST_F(ProgramCacheTest, TheFolderIsPrivateAndAnotherUsersIsRefused) {
  ProgramCache made((dir_ / "made").string());
  EXPECT_EQ(fs::status(dir_ / "made").permissions(), fs::perms::owner_all);
  fs::create_directories(dir_ / "shared");
  fs::permissions(dir_ / "shared", fs::perms::owner_all | fs::perms::group_all);
  ProgramCache shared((dir_ / "shared").string());
  EXPECT_EQ(fs::status(dir_ / "shared").permissions(),
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  fs::create_directories(dir_ / "theirs");
  if (::chown((dir_ / "theirs").c_str(), ::geteuid() + 1, ::getegid()) != 0)
    GTEST_SKIP() << "not root: cannot give a folder to another user";
  try {
    ProgramCache theirs((dir_ / "theirs").string());
    FAIL() << "another user's cache folder was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kEnvironment);
    EXPECT_EQ(std::string(e.what()),
              "cannot use the program cache directory " + (dir_ / "theirs").string() +
                  ": another user's folder, so a program planted there would be measured as a "
                  "config's: use a folder of your own (--cache-dir or BEAST_CACHE_DIR)");
  }
}

// Twelve entries of one size, written a minute apart (0 the oldest); entry 0
// is then loaded (used now). With room for eight, pruning keeps six (three
// quarters of the limit): entry 0 and the five newest.
TEST_F(ProgramCacheTest, PastItsLimitTheEntriesUsedLongestAgoGo) {
  ProgramCache unlimited(dir_.string(), 0);
  std::vector<ProgramKey> keys;
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 12; ++i) {
    keys.push_back({"__kernel void k" + std::to_string(100 + i) + "() {}", "", "dev"});
    ASSERT_TRUE(unlimited.Store(keys.back(), Built()));
    fs::last_write_time(unlimited.PathOf(keys.back()), now - std::chrono::minutes(12 - i));
  }
  const uint64_t entry = fs::file_size(unlimited.PathOf(keys[0]));
  for (const ProgramKey& k : keys) ASSERT_EQ(fs::file_size(unlimited.PathOf(k)), entry);
  unlimited.Prune();  // no limit: nothing goes
  for (const ProgramKey& k : keys) EXPECT_TRUE(fs::exists(unlimited.PathOf(k)));
  ASSERT_TRUE(unlimited.Load(keys[0]).has_value());
  ProgramCache limited(dir_.string(), 8 * entry);  // prunes as it opens
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(fs::exists(limited.PathOf(keys[i])), i == 0 || i >= 7) << i;
  }
  // The limit by default comes from BEAST_CACHE_MAX_MB, a whole number of MiB.
  ::setenv("BEAST_CACHE_MAX_MB", "lots", 1);
  try {
    ProgramCache bad(dir_.string());
    FAIL() << "BEAST_CACHE_MAX_MB=lots was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot use the program cache directory " + dir_.string() +
                                         ": BEAST_CACHE_MAX_MB must be a whole number of MiB, "
                                         "not \"lots\"");
  }
  ::unsetenv("BEAST_CACHE_MAX_MB");
}

}  // namespace
}  // namespace beast::harness
