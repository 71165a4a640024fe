// One tuning job on several devices at once, through the beast CLI on PoCL,
// which makes as many CPU devices as POCL_DEVICES names: two identical ones
// ("pthread pthread": one device in the database) share the configs, one
// process each measuring every other one, and the first of them then
// measures the baseline and confirms the winner; two different ones ("basic
// pthread") each tune everything for themselves; the user's --baselines and
// --confirm-top are the final run's alone; a recorded failure is retried
// once a job; SIGINT to the job's process stops every device's. Bad device
// lists are one line and write nothing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/process_watch.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;
using testing::SqlRows;

class MultiDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("multi_device");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // beast tune of gemm/tiled on a small problem, 12 configs, on PoCL's `pocl_devices`.
  testing::CommandResult Tune(const std::string& pocl_devices, const std::string& devices,
                              bool merge = true) {
    return RunCommand(
        "POCL_DEVICES='" + pocl_devices + "' " + BeastBinary() + " tune " + devices +
            " --template gemm/tiled --problem gemm:M=40,N=24,K=32 --max-configs 12 --max-reps 5" +
            " --compile-jobs 0 --cache-dir " + (dir_ / "cache").string() + " --db " + db_ +
            " --json",
        merge);
  }
  fs::path dir_;
  std::string db_;
};

TEST_F(MultiDevice, IdenticalDevicesShareTheConfigsThenTheFirstConfirms) {
  testing::CommandResult run =
      Tune("pthread pthread", "--device opencl:0 --device opencl:1", false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // One summary: the group of both devices, every config counted once.
  const nlohmann::json summaries = nlohmann::json::parse(run.output);
  ASSERT_EQ(summaries.size(), 1u) << run.output;
  EXPECT_EQ(summaries[0]["device"], "opencl:0") << run.output;
  EXPECT_EQ(summaries[0]["devices"], (nlohmann::json{"opencl:0", "opencl:1"})) << run.output;
  const nlohmann::json& pair = summaries[0]["pairs"][0];
  EXPECT_EQ(pair["selected"], 12) << run.output;
  EXPECT_EQ(pair["measured"], 12) << run.output;
  EXPECT_EQ(pair["skipped"], 0) << run.output;
  EXPECT_EQ(pair["failed"], 0) << run.output;
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM devices"), std::vector<std::string>{"1"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*), count(DISTINCT config_id) FROM measurements"),
            std::vector<std::string>{"12|12"});
  // Each device's process measured every other config; the final run none.
  EXPECT_EQ(SqlRows(db_,
                    "SELECT r.command LIKE '%--shard 0/2%', r.command LIKE '%--shard 1/2%', "
                    "count(m.id) FROM runs r "
                    "LEFT JOIN measurements m ON m.run_id = r.id GROUP BY r.id ORDER BY 1, 2"),
            (std::vector<std::string>{"0|0|0", "0|1|6", "1|0|6"}));
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM confirmations"), std::vector<std::string>{"1"});
  EXPECT_EQ(SqlRows(db_, "SELECT library, status FROM baselines"),
            std::vector<std::string>{"clblast|ok"});
  EXPECT_EQ(SqlRows(db_, "SELECT DISTINCT status FROM runs"), std::vector<std::string>{"finished"});

  // The same command again measures nothing.
  testing::CommandResult again =
      Tune("pthread pthread", "--device opencl:0 --device opencl:1", false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const nlohmann::json pair_again = nlohmann::json::parse(again.output)[0]["pairs"][0];
  EXPECT_EQ(pair_again["measured"], 0) << again.output;
  EXPECT_EQ(pair_again["skipped"], 12) << again.output;
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM measurements"), std::vector<std::string>{"12"});
}

// --baselines and --confirm-top given by the user are the final run's: each
// device process gets its own (none, 0) instead, not both (a repeated option
// is refused, and its share would fall to the final run alone).
TEST_F(MultiDevice, TheUsersBaselinesAndConfirmTopAreTheFinalRunsOnly) {
  testing::CommandResult run =
      Tune("pthread pthread",
           "--device opencl:0 --device opencl:1 --baselines none --confirm-top 2", false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(SqlRows(db_,
                    "SELECT r.command LIKE '%--shard 0/2%', r.command LIKE '%--shard 1/2%', "
                    "count(m.id) FROM runs r "
                    "LEFT JOIN measurements m ON m.run_id = r.id GROUP BY r.id ORDER BY 1, 2"),
            (std::vector<std::string>{"0|0|0", "0|1|6", "1|0|6"}));
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM baselines"), std::vector<std::string>{"0"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM confirmation_results"),
            std::vector<std::string>{"2"});
}

TEST_F(MultiDevice, DifferentDevicesEachTuneEverything) {
  testing::CommandResult run = Tune("basic pthread", "--device opencl:0 --device opencl:1", false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(nlohmann::json::parse(run.output).size(), 2u) << run.output;
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM devices"), std::vector<std::string>{"2"});
  EXPECT_EQ(
      SqlRows(db_,
              "SELECT count(*), count(DISTINCT config_id) FROM measurements GROUP BY device_id"),
      (std::vector<std::string>{"12|12", "12|12"}));
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM confirmations"), std::vector<std::string>{"2"});
}

// --retry-failed on several devices: each device's process measures its
// recorded failures again, once; the final run does not retry them again
// (here they fail again: every config runs past a limit of a millisecond).
TEST_F(MultiDevice, EachRecordedFailureIsRetriedOnceAJob) {
  const std::string tune =
      "POCL_DEVICES='basic pthread' " + BeastBinary() +
      " tune --device opencl:0 --device opencl:1 --template gemm/tiled"
      " --problem gemm:M=40,N=24,K=32 --max-configs 2 --compile-jobs 0"
      " --baselines none --confirm-top 0 --timeout-seconds 0.001 --cache-dir " +
      (dir_ / "cache").string() + " --db " + db_ + " --json";
  testing::CommandResult first = RunCommand(tune, false);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(SqlRows(db_, "SELECT status, count(*) FROM measurements GROUP BY status"),
            std::vector<std::string>{"timeout|4"});
  testing::CommandResult again = RunCommand(tune + " --retry-failed timeout", false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(
      SqlRows(db_, "SELECT count(*), count(DISTINCT measurement_id) FROM superseded_measurements"),
      std::vector<std::string>{"4|4"});
  for (const auto& summary : nlohmann::json::parse(again.output))
    EXPECT_EQ(summary["pairs"][0]["remeasured"], 2) << again.output;
}

// --retry-failed on two identical devices: the first's process measures the
// recorded failures again while the second waits for it, so both start the
// model's trajectory from the same outcomes: together they measure the new
// budget once, and nothing is left for the final run (a shard whose
// trajectory went another way waited 600 s for a config never measured).
TEST_F(MultiDevice, SharedDevicesRetryFailuresOnceAndKeepOneTrajectory) {
  const std::string tune = "POCL_DEVICES='pthread pthread' " + BeastBinary() +
                           " tune --device opencl:0 --device opencl:1 --template gemm/tiled"
                           " --problem gemm:M=40,N=24,K=32 --compile-jobs 0 --baselines none"
                           " --confirm-top 0 --max-reps 3 --cache-dir " +
                           (dir_ / "cache").string() + " --db " + db_ + " --json";
  testing::CommandResult first =
      RunCommand(tune + " --max-configs 8 --timeout-seconds 0.001", false);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_EQ(SqlRows(db_, "SELECT status, count(*) FROM measurements GROUP BY status"),
            std::vector<std::string>{"timeout|8"});
  testing::CommandResult again =
      RunCommand(tune + " --max-configs 32 --retry-failed timeout", false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(
      SqlRows(db_, "SELECT count(*), count(DISTINCT measurement_id) FROM superseded_measurements"),
      std::vector<std::string>{"8|8"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*), count(DISTINCT config_id) FROM measurements"),
            std::vector<std::string>{"32|32"});
  // Shard 0 measured the 8 again and half of the 24 new ones (past the
  // model's initial design of 16, which no outcome changes), shard 1 the
  // other half; the final run found everything measured.
  EXPECT_EQ(SqlRows(db_,
                    "SELECT count(m.id) FROM runs r LEFT JOIN measurements m ON m.run_id = r.id "
                    "WHERE r.id > 3 GROUP BY r.id ORDER BY r.command LIKE '%--shard%', "
                    "r.command LIKE '%--shard 1/2%'"),
            (std::vector<std::string>{"0", "20", "12"}));
}

// SIGINT sent to the job's process alone (kill -INT, a scheduler: not a
// terminal's Ctrl-C, which reaches every process of the group) stops the
// device processes too: the job ends interrupted, its budget not measured.
TEST_F(MultiDevice, SigintToTheJobAloneStopsEveryDevice) {
  const pid_t job = testing::SpawnShell(
      "POCL_DEVICES='pthread pthread' exec " + BeastBinary() +
      " tune --device opencl:0 --device opencl:1 --template gemm/tiled"
      " --problem gemm:M=40,N=24,K=32 --max-configs 60 --max-reps 5 --compile-jobs 0"
      " --baselines none --confirm-top 0 --no-cache --quiet --db " +
      db_ + " >" + (dir_ / "out.txt").string() + " 2>&1");
  ASSERT_GT(job, 0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < give_up &&
         !(fs::exists(db_) && testing::SqlCount(db_, "SELECT count(*) FROM measurements") >= 3))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(job, SIGINT);
  int status = 0;
  waitpid(job, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130)
      << status << "\n"
      << testing::ReadFile(dir_ / "out.txt");
  EXPECT_LT(testing::SqlCount(db_, "SELECT count(*) FROM measurements"), 60);
  EXPECT_EQ(SqlRows(db_, "SELECT DISTINCT status FROM runs"),
            std::vector<std::string>{"interrupted"});
}

TEST_F(MultiDevice, BadDeviceListsAreOneLineAndWriteNothing) {
  struct Case {
    std::string devices;
    int exit_code;
    std::string message;
  };
  for (const Case& c :
       std::vector<Case>{{"--device opencl:0 --device opencl:0", 2,
                          "beast tune: device opencl:0 is named twice\n"},
                         {"--device opencl:0 --device opencl:5", 1,
                          "beast tune: no device opencl:5 (2 OpenCL devices present: "},
                         {"--device opencl:0 --device cuda:sm_90", 2,
                          "beast tune: --device cuda:sm_90 compiles only, for one architecture: it "
                          "cannot be combined with other "
                          "devices\n"}}) {
    testing::CommandResult r = RunCommand(
        "POCL_DEVICES='pthread pthread' " + BeastBinary() + " tune " + c.devices +
            " --template gemm/tiled --problem gemm:M=8,N=8,K=8 --db " + db_ + " 2>&1 >/dev/null",
        false);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.devices << "\n" << r.output;
    EXPECT_EQ(r.output.rfind(c.message, 0), 0u) << c.devices << "\n" << r.output;
    EXPECT_EQ(CountOccurrences(r.output, "\n"), 1u) << r.output;
    EXPECT_FALSE(fs::exists(db_));
  }
}

}  // namespace
}  // namespace beast
