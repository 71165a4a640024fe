// Signals a user's terminal sends, made for real (issue 16): a second
// Ctrl-C while the first is being handled, and SIGHUP (the terminal went
// away), each end the run as `interrupted`: exit 130, the summary printed,
// the run row marked interrupted, and every worker reaped. Ctrl-Z and fg
// (SIGSTOP and SIGCONT to the group) cost no config a timeout.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/command_runner.hpp"
#include "support/process_watch.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::Alive;
using testing::BeastBinary;
using testing::Children;
using testing::FreshTestDir;
using testing::ReadFile;
using testing::SpawnShell;
using testing::SqlCount;
using Clock = std::chrono::steady_clock;

class Signals : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("signals"); }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts a 40-config tune, waits until it has recorded 3 measurements,
  // sends `signals` 50 ms apart, and waits for it; its exit status.
  int InterruptAfterThree(const std::vector<int>& signals, std::set<pid_t>* seen) {
    const std::string db = (dir_ / "beast.db").string();
    const pid_t beast = SpawnShell(
        "exec " + BeastBinary() +
        " tune --template gemm/tiled --problem gemm:M=64,N=64,K=64,dtype=f32 --device opencl:0"
        " --db " +
        db + " --cache-dir " + (dir_ / "cache").string() +
        " --max-configs 40 --max-reps 3 --baselines none --confirm-top 0 --quiet >" +
        (dir_ / "out.txt").string() + " 2>" + (dir_ / "err.txt").string());
    if (beast <= 0) return -1;
    const Clock::time_point give_up = Clock::now() + std::chrono::minutes(5);
    int status = 0;
    while (Clock::now() < give_up && SqlCount(db, "SELECT count(*) FROM measurements") < 3) {
      for (const auto& child : Children(beast)) seen->insert(child.pid);
      if (waitpid(beast, &status, WNOHANG) == beast) return -1;  // it ended on its own
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (const auto& child : Children(beast)) seen->insert(child.pid);
    for (int sig : signals) {
      kill(beast, sig);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Stopping takes a moment; a run that does not end is killed and fails.
    while (Clock::now() < give_up && waitpid(beast, &status, WNOHANG) != beast)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (Clock::now() >= give_up) {
      kill(beast, SIGKILL);
      waitpid(beast, &status, 0);
    }
    return status;
  }

  void ExpectInterrupted(int status, const std::set<pid_t>& seen) {
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 130) << ReadFile(dir_ / "err.txt");
    const std::string out = ReadFile(dir_ / "out.txt");
    EXPECT_NE(out.find("run interrupted, run the same command again to resume"), std::string::npos)
        << out;
    EXPECT_NE(out.find("gemm/tiled"), std::string::npos) << out;  // the summary's table
    const std::string db = (dir_ / "beast.db").string();
    EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), 1);
    EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM runs"), 1);
    EXPECT_FALSE(seen.empty());
    for (pid_t pid : seen) EXPECT_FALSE(Alive(pid)) << "process " << pid << " outlived the run";
  }

  fs::path dir_;
};

TEST_F(Signals, ASecondCtrlCEndsTheRunInterruptedWithItsSummary) {
  std::set<pid_t> seen;
  const int status = InterruptAfterThree({SIGINT, SIGINT}, &seen);
  ExpectInterrupted(status, seen);
}

// Ctrl-Z, then fg: the tuner and its worker stop together (one process
// group) for longer than a config's limit, then go on. The config in flight
// is not a timeout: the time they stood stopped counts against no limit.
TEST_F(Signals, StoppedAndContinuedNoConfigTimesOut) {
  const std::string db = (dir_ / "beast.db").string();
  const pid_t beast =
      testing::SpawnProcess({BeastBinary(), "tune",
                             "--template",  "gemm/tiled",
                             "--problem",   "gemm:M=64,N=64,K=64",
                             "--device",    "opencl:0",
                             "--db",        db,
                             "--no-cache",  "--compile-jobs",
                             "0",           "--max-configs",
                             "12",          "--max-reps",
                             "3",           "--timeout-seconds",
                             "6",           "--baselines",
                             "none",        "--confirm-top",
                             "0",           "--quiet"},
                            (dir_ / "out.txt").string(), /*own_process_group=*/true);
  ASSERT_GT(beast, 0);
  const Clock::time_point give_up = Clock::now() + std::chrono::minutes(5);
  int status = 0;
  while (Clock::now() < give_up && SqlCount(db, "SELECT count(*) FROM measurements") < 2) {
    ASSERT_NE(waitpid(beast, &status, WNOHANG), beast) << ReadFile(dir_ / "out.txt");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-beast, SIGSTOP);  // the whole group, as a terminal's Ctrl-Z
  std::this_thread::sleep_for(std::chrono::seconds(7));
  kill(-beast, SIGCONT);
  while (Clock::now() < give_up && waitpid(beast, &status, WNOHANG) != beast)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(dir_ / "out.txt");
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), 12);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'timeout'"), 0);
}

TEST_F(Signals, SighupEndsTheRunInterruptedWithItsSummary) {
  std::set<pid_t> seen;
  const int status = InterruptAfterThree({SIGHUP}, &seen);
  ExpectInterrupted(status, seen);
}

}  // namespace
}  // namespace beast
