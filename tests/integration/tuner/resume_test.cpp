// Resume after kill -9: a tune run killed at random moments, again and again,
// then run to completion, ends with exactly the measurements (config, status)
// of a run that was never interrupted — nothing lost, nothing twice — the
// same one CLBlast baseline and one confirmation of the top 3, and a database
// that passes SQLite's integrity check.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness/opencl/clblast_baseline.hpp"
#include "support/command_runner.hpp"
#include "support/process_watch.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;
using testing::SpawnProcess;
using testing::SqlCount;
using testing::SqlRows;

// 12 configs: the default and the model strategy's initial design, which
// does not depend on the times measured, so the trajectory is the same
// however the kills fall. (That a resumed model trajectory is the
// uninterrupted one whatever the times is search_trajectory_test's.)
std::vector<std::string> TuneArgs(const std::string& db) {
  // --no-cache: every run builds its kernels like the reference did, so kill
  // times scaled to the reference land in the work however warm caches are.
  return {"tune",     "--template", "gemm/tiled", "--problem", "gemm:M=24,N=32,K=40",
          "--device", "opencl:0",   "--db",       db,          "--max-configs",
          "12",       "--max-reps", "3",          "--quiet",   "--no-cache"};
}

std::string Joined(const std::vector<std::string>& args) {
  std::string text = BeastBinary();
  for (const auto& a : args) text += " " + a;
  return text;
}

// Starts the beast binary with its output into /dev/null.
pid_t Spawn(std::vector<std::string> args) {
  args.insert(args.begin(), BeastBinary());
  return SpawnProcess(args, "/dev/null");
}

struct DbState {
  std::set<std::pair<std::string, std::string>> outcomes;  // (config key, status)
  int64_t rows = 0;
  int64_t distinct = 0;             // distinct (device, problem, config)
  std::set<std::string> baselines;  // "library routine", one per row
  int64_t baseline_rows = 0;
  int64_t confirmations = 0;
  int64_t confirmed_candidates = 0;   // rows of confirmation_results
  int64_t unmeasured_candidates = 0;  // of those, configs without an ok measurement
  std::string integrity;
};

DbState Read(const std::string& path) {
  DbState s;
  for (const std::string& row :
       SqlRows(path,
               "SELECT c.config_key, m.status FROM measurements m JOIN configs c ON c.id = "
               "m.config_id")) {
    const size_t bar = row.rfind('|');  // a status has no '|'
    s.outcomes.insert({row.substr(0, bar), row.substr(bar + 1)});
  }
  s.rows = SqlCount(path, "SELECT COUNT(*) FROM measurements");
  s.distinct = SqlCount(path,
                        "SELECT COUNT(DISTINCT device_id || '/' || problem_id || '/' || config_id) "
                        "FROM measurements");
  for (const std::string& row : SqlRows(path, "SELECT library || ' ' || routine FROM baselines")) {
    s.baselines.insert(row);
    ++s.baseline_rows;
  }
  s.confirmations = SqlCount(path, "SELECT COUNT(*) FROM confirmations");
  s.confirmed_candidates = SqlCount(path, "SELECT COUNT(*) FROM confirmation_results");
  s.unmeasured_candidates =
      SqlCount(path,
               "SELECT SUM(NOT EXISTS (SELECT 1 FROM measurements m WHERE m.config_id = "
               "r.config_id AND m.status = 'ok')) FROM confirmation_results r");
  for (const std::string& row : SqlRows(path, "PRAGMA integrity_check")) s.integrity += row;
  return s;
}

TEST(Resume, KilledAtRandomMomentsThenRerunEqualsAnUninterruptedRun) {
  const fs::path dir = testing::FreshTestDir("resume");
  const std::string reference_db = (dir / "reference.db").string();
  const std::string resumed_db = (dir / "resumed.db").string();

  // PoCL caches built kernels on disk, which would make every run after the
  // first far faster than it; without the cache each run takes as long as the
  // reference, so kill times scaled to it land in the middle of the work.
  setenv("POCL_KERNEL_CACHE", "0", 1);
  auto started = std::chrono::steady_clock::now();
  auto reference_run = RunCommand(Joined(TuneArgs(reference_db)));
  ASSERT_EQ(reference_run.exit_code, 0) << reference_run.output;
  const double reference_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  DbState reference = Read(reference_db);
  ASSERT_EQ(reference.outcomes.size(), 12u);
  // CLBlast's Sgemm, measured once, in a build that links CLBlast; none without.
  const bool clblast = harness::ClblastAvailable();
  EXPECT_EQ(reference.baselines,
            clblast ? std::set<std::string>{"clblast Sgemm"} : std::set<std::string>{});
  EXPECT_EQ(reference.confirmations, 1);
  EXPECT_EQ(reference.confirmed_candidates, 3);

  // Kill -9 at random moments: while starting, rendering, building, timing or
  // writing. The seed is printed so a failure can be replayed.
  std::random_device device;
  unsigned seed = device();
  std::mt19937 rng(seed);
  // Up to 60% of the reference run: the first kill always leaves work, later
  // ones land wherever the shrinking remainder is.
  std::uniform_int_distribution<int> delay_ms(20, static_cast<int>(600 * reference_seconds));
  int killed_with_work_left = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    pid_t pid = Spawn(TuneArgs(resumed_db));
    ASSERT_GT(pid, 0);  // kill(-1, ...) below would signal every process of the user
    int ms = delay_ms(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) ++killed_with_work_left;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", kill after " + std::to_string(ms) + " ms");
    if (fs::exists(resumed_db)) {
      DbState partial = Read(resumed_db);
      EXPECT_EQ(partial.integrity, "ok");
      EXPECT_EQ(partial.rows, partial.distinct);
      EXPECT_LE(partial.baseline_rows, 1);
      EXPECT_LE(partial.confirmations, 1);
      EXPECT_EQ(partial.confirmed_candidates, 3 * partial.confirmations);
      for (const auto& o : partial.outcomes)
        EXPECT_TRUE(reference.outcomes.count(o)) << o.first << " " << o.second;
    }
  }
  EXPECT_GT(killed_with_work_left, 0) << "seed " << seed << ": every run finished before its kill";

  auto final_run = RunCommand(Joined(TuneArgs(resumed_db)));
  ASSERT_EQ(final_run.exit_code, 0) << final_run.output;
  DbState resumed = Read(resumed_db);
  EXPECT_EQ(resumed.outcomes, reference.outcomes) << "seed " << seed;
  EXPECT_EQ(resumed.rows, 12);
  EXPECT_EQ(resumed.distinct, 12);
  EXPECT_EQ(resumed.baselines, reference.baselines);
  EXPECT_EQ(resumed.baseline_rows, clblast ? 1 : 0);
  EXPECT_EQ(resumed.confirmations, 1);
  EXPECT_EQ(resumed.confirmed_candidates, 3);
  EXPECT_EQ(resumed.unmeasured_candidates, 0);
  EXPECT_EQ(resumed.integrity, "ok");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace beast
