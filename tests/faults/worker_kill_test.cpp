// Faults of the device worker made for real (issue 16): `kill -9` of the
// worker, as the OOM killer or an operator does it, at 5 random points of a
// 40-config run costs nothing — every config still ends ok, each config a
// kill found in flight measured once more in a fresh worker (the worker
// builds each config itself here, so most kills find one) — and leaves no
// process behind; and
// `--retry-failed` measures recorded failures again, keeping the old
// outcomes as history.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
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
using testing::CommandResult;
using testing::FreshTestDir;
using testing::JsonOf;
using testing::ReadFile;
using testing::RunCommand;
using testing::SpawnShell;
using testing::SqlCount;
using Clock = std::chrono::steady_clock;

constexpr int kConfigs = 40;
constexpr int kKills = 5;

class WorkerKill : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("worker_kill"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Tune(const std::string& extra) const {
    return BeastBinary() +
           " tune --template gemm/tiled --problem gemm:M=192,N=192,K=192,dtype=f32 --device "
           "opencl:0"
           " --db " +
           (dir_ / "beast.db").string() + " --cache-dir " + (dir_ / "cache").string() +
           " --max-reps 3 --baselines none --confirm-top 0 --quiet --json " + extra;
  }
  fs::path dir_;
};

TEST_F(WorkerKill, FiveKillsOfTheDeviceWorkerCostNoConfigAndLeaveNoProcess) {
  const std::string db = (dir_ / "beast.db").string();
  // No compile pool: the device worker builds each config itself, so it is
  // busy with one nearly all the time and a kill finds a config in flight.
  const std::string command =
      "exec " + Tune("--compile-jobs 0 --max-configs " + std::to_string(kConfigs)) + " >" +
      (dir_ / "out.json").string() + " 2>" + (dir_ / "err.txt").string();
  const pid_t beast = SpawnShell(command);
  ASSERT_GT(beast, 0);

  // Five kill points, at least three configs apart, after a random delay
  // into the config being measured then.
  std::mt19937 random(20261125);
  std::set<int> points;
  while (points.size() < kKills) {
    const int at = std::uniform_int_distribution<int>(2, kConfigs - 4)(random);
    if (std::all_of(points.begin(), points.end(), [&](int p) { return std::abs(p - at) >= 3; }))
      points.insert(at);
  }
  std::set<pid_t> seen, killed;
  const Clock::time_point give_up = Clock::now() + std::chrono::minutes(8);
  int status = 0;
  bool exited = false;
  auto poll = [&] {
    for (const auto& child : Children(beast)) seen.insert(child.pid);
    exited = waitpid(beast, &status, WNOHANG) == beast;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  for (int point : points) {
    while (!exited && Clock::now() < give_up &&
           SqlCount(db, "SELECT count(*) FROM measurements") < point)
      poll();
    if (exited) break;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 100)(random)));
    for (const auto& child : Children(beast)) {
      // The device worker, not a compile worker (`beast worker --compile`).
      if (child.verb != "worker" || child.command_line.find(" --compile ") != std::string::npos)
        continue;
      ASSERT_EQ(kill(child.pid, SIGKILL), 0);
      killed.insert(child.pid);
    }
    // The config in flight is measured again before the next kill.
    while (!exited && Clock::now() < give_up &&
           SqlCount(db, "SELECT count(*) FROM measurements") < point + 2)
      poll();
  }
  while (!exited && Clock::now() < give_up) poll();
  if (!exited) kill(beast, SIGKILL);
  ASSERT_TRUE(exited) << "the run did not end";
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << ReadFile(dir_ / "err.txt");
  EXPECT_EQ(killed.size(), static_cast<size_t>(kKills));

  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), kConfigs);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), kConfigs);
  const long long twice = SqlCount(db, "SELECT count(*) FROM measurements WHERE attempts = 2");
  // A kill that finds the worker idle costs nothing; one that finds it busy
  // costs that config a second attempt.
  EXPECT_GE(twice, 1);
  EXPECT_LE(twice, kKills);
  std::printf("%lld of %d kills found a config in flight, measured again\n", twice, kKills);
  const nlohmann::json summary = JsonOf(ReadFile(dir_ / "out.json"));
  ASSERT_TRUE(summary.is_object()) << ReadFile(dir_ / "out.json");
  EXPECT_EQ(summary["pairs"][0]["retried"].get<long long>(), twice);
  EXPECT_EQ(summary["pairs"][0]["failed"].get<long long>(), 0);
  EXPECT_GE(summary["worker_restarts"].get<long long>(), kKills);

  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (pid_t pid : seen) EXPECT_FALSE(Alive(pid)) << "process " << pid << " outlived the run";
}

TEST_F(WorkerKill, RetryFailedMeasuresRecordedFailuresAgainAndKeepsTheHistory) {
  const std::string db = (dir_ / "beast.db").string();
  // Every config runs past a limit of a millisecond: recorded `timeout`.
  CommandResult first = RunCommand(Tune("--max-configs 6 --timeout-seconds 0.001"), false);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'timeout'"), 6);
  const long long ids = SqlCount(db, "SELECT sum(id) FROM measurements");

  CommandResult again = RunCommand(Tune("--max-configs 6 --retry-failed timeout"), false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const nlohmann::json pair = JsonOf(again.output)["pairs"][0];
  EXPECT_EQ(pair["remeasured"].get<int>(), 6);
  EXPECT_EQ(pair["recovered"].get<int>(), 6);
  EXPECT_EQ(pair["measured"].get<int>(), 6);
  // Measured again in this run, they are not also configs already measured
  // (the summary counted each twice: 6 measured and 6 skipped).
  EXPECT_EQ(pair["skipped"].get<int>(), 0);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'ok' AND run_id = 2"),
            6);
  EXPECT_EQ(SqlCount(db, "SELECT sum(id) FROM measurements"), ids);  // the same rows
  EXPECT_EQ(SqlCount(db,
                     "SELECT count(*) FROM superseded_measurements s JOIN measurements m "
                     "ON m.id = s.measurement_id WHERE s.status = 'timeout' AND s.run_id = 1 "
                     "AND s.superseded_by_run = 2"),
            6);

  // The default (crashed,timeout,runtime_error) finds nothing left to retry.
  CommandResult third = RunCommand(Tune("--max-configs 6 --retry-failed"), false);
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_EQ(JsonOf(third.output)["pairs"][0]["measured"].get<int>(), 0);
  EXPECT_EQ(JsonOf(third.output)["pairs"][0]["skipped"].get<int>(), 6);

  CommandResult bad =
      RunCommand(Tune("--max-configs 6 --retry-failed ok") + " 2>&1 >/dev/null", false);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.output,
            "beast tune: --retry-failed: \"ok\" is not a failure status (compile_error, "
            "runtime_error, crashed, timeout, wrong_result, pruned_after_compile)\n");
}

}  // namespace
}  // namespace beast
