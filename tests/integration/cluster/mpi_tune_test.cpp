// beast tune under mpirun for real (issue 18): Open MPI starts a coordinator
// and two device ranks on PoCL (--oversubscribe: this machine has two cores).
// With the random strategy the configs measured are exactly a single
// process's with the same seed and budget; with the default strategy no
// config is measured twice; kill -9 of a device rank ends the job and the
// same command completes it to the uninterrupted set; SIGTERM to mpirun stops
// every rank cleanly; and no process of the run is left behind. Skipped when
// this beast was built without MPI (BEAST_WITH_MPI off: no Open MPI found).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/command_runner.hpp"
#include "support/process_watch.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;
using testing::SpawnShell;
using testing::SqlCount;
using testing::SqlRows;
using Clock = std::chrono::steady_clock;

// mpirun as root (CI runs as root) with more ranks than cores.
const char kMpirun[] =
    "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np ";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The processes whose command line or environment names `needle` (every
// process of a run started with the test's folder in its arguments).
std::vector<pid_t> ProcessesNaming(const std::string& needle) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (pid == getpid()) continue;
    if (ReadText(entry.path() / "cmdline").find(needle) != std::string::npos) out.push_back(pid);
  }
  return out;
}

// The beast process of MPI rank `rank` whose command line names `needle`.
pid_t RankProcess(const std::string& needle, int rank) {
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (pid_t pid : ProcessesNaming(needle)) {
    const std::string env = ReadText("/proc/" + std::to_string(pid) + "/environ");
    std::stringstream vars(env);
    for (std::string var; std::getline(vars, var, '\0');)
      if (var == want) return pid;
  }
  return -1;
}

class MpiTune : public ::testing::Test {
 protected:
  void SetUp() override {
#if !BEAST_TEST_WITH_MPI
    GTEST_SKIP() << "beast was built without MPI";
#endif
    dir_ = testing::FreshTestDir("mpi_tune");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // beast tune's arguments: gemm/tiled and conv2d/direct_nchw, a small
  // problem each, `budget` configs per pair, into `db`.
  std::string TuneArgs(const std::string& db, int budget, const std::string& more) const {
    return " tune --template gemm/tiled --template conv2d/direct_nchw"
           " --problem gemm:M=40,N=24,K=32 --problem conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,pad=1"
           " --max-configs " +
           std::to_string(budget) + " --max-reps 3 --compile-jobs 0 --cache-dir " +
           (dir_ / "cache").string() + " --db " + db + " " + more;
  }
  std::string Mpi(int ranks, const std::string& args) const {
    return std::string(kMpirun) + std::to_string(ranks) + " " + BeastBinary() + args;
  }
  // Every measured (template, problem, config), sorted.
  static std::vector<std::string> Measured(const std::string& db) {
    return SqlRows(db,
                   "SELECT t.name || ' ' || p.key || ' ' || c.config_key FROM measurements m "
                   "JOIN configs c ON c.id = m.config_id JOIN templates t ON t.id = c.template_id "
                   "JOIN problems p ON p.id = m.problem_id ORDER BY 1");
  }
  // What one process on opencl:0 measures with these arguments.
  std::vector<std::string> Reference(int budget, const std::string& more) {
    const std::string db = (dir_ / "reference.db").string();
    testing::CommandResult run =
        RunCommand(BeastBinary() + TuneArgs(db, budget, more + " --quiet"));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return Measured(db);
  }
  void ExpectNothingLeft() {
    // The ranks' command lines name the test folder, and so do their device
    // workers' (the program cache is in it).
    for (int i = 0; i < 50 && !ProcessesNaming(dir_.string()).empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(ProcessesNaming(dir_.string()).empty()) << "a process of the run is left";
  }
  // Starts the mpirun job in the background, its output into out.txt; the
  // pid is mpirun's.
  pid_t Start(const std::string& command) {
    return SpawnShell("exec " + command + " >" + (dir_ / "out.txt").string() + " 2>&1");
  }
  // Waits until the database holds `count` measurements (false: the job
  // ended first, or 5 minutes passed).
  bool AwaitMeasurements(pid_t job, int64_t count) {
    const Clock::time_point give_up = Clock::now() + std::chrono::minutes(5);
    while (Clock::now() < give_up) {
      if (fs::exists(db_) && SqlCount(db_, "SELECT count(*) FROM measurements") >= count)
        return true;
      int status = 0;
      if (waitpid(job, &status, WNOHANG) == job) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  // `command` (a 30-config job of TuneArgs, `more` its own options) run
  // again after it stopped midway: exactly what one uninterrupted process
  // measures, no config twice, no process left.
  void ExpectTheSameCommandCompletesIt(const std::string& command, const std::string& more) {
    testing::CommandResult again = RunCommand(command);
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(Measured(db_), Reference(30, more));
    EXPECT_EQ(SqlRows(db_,
                      "SELECT count(*), count(DISTINCT problem_id || '/' || config_id) "
                      "FROM measurements"),
              std::vector<std::string>{"60|60"});
    ExpectNothingLeft();
  }

  int Wait(pid_t job) {
    int status = 0;
    waitpid(job, &status, 0);
    return status;
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(MpiTune, TheRandomStrategyMeasuresWhatOneProcessMeasures) {
  const std::string more = "--strategy random --seed 5 --baselines none";
  testing::CommandResult run = RunCommand(Mpi(3, TuneArgs(db_, 10, more + " --json")), false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(Measured(db_), Reference(10, more));
  EXPECT_EQ(SqlCount(db_, "SELECT count(*) FROM measurements"), 20);
  // One device group (both ranks opened opencl:0), its configs counted once,
  // each rank's share named with its rank and host.
  const nlohmann::json summaries = nlohmann::json::parse(run.output);
  ASSERT_EQ(summaries.size(), 1u) << run.output;
  ASSERT_EQ(summaries[0]["devices"].size(), 2u) << run.output;
  EXPECT_NE(summaries[0]["devices"][0].get<std::string>().find("(rank 1): "), std::string::npos);
  EXPECT_NE(summaries[0]["devices"][1].get<std::string>().find("(rank 2): "), std::string::npos);
  for (const auto& pair : summaries[0]["pairs"]) EXPECT_EQ(pair["measured"], 10) << run.output;
  EXPECT_EQ(SqlRows(db_, "SELECT status, command LIKE '%(mpirun: 3 ranks)' FROM runs"),
            std::vector<std::string>{"finished|1"});
  EXPECT_EQ(SqlCount(db_, "SELECT count(*) FROM confirmations"), 2);
  EXPECT_EQ(SqlCount(db_, "SELECT count(*) FROM devices"), 1);
  ExpectNothingLeft();
}

TEST_F(MpiTune, TheDefaultStrategyMeasuresNoConfigTwiceAndTheBaselineOnce) {
  testing::CommandResult run = RunCommand(Mpi(3, TuneArgs(db_, 14, "--quiet")));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(SqlRows(db_,
                    "SELECT count(*), count(DISTINCT problem_id || '/' || config_id) "
                    "FROM measurements"),
            std::vector<std::string>{"28|28"});
  EXPECT_EQ(SqlRows(db_, "SELECT DISTINCT strategy FROM measurements ORDER BY 1"),
            (std::vector<std::string>{"default", "model"}));
  // The vendor library on each problem it computes, measured by a rank.
  EXPECT_EQ(SqlRows(db_, "SELECT library, status FROM baselines ORDER BY 1, 2"),
            (std::vector<std::string>{"clblast|ok", "clblast|ok"}));
  ExpectNothingLeft();
}

TEST_F(MpiTune, KillNineOfADeviceRankEndsTheJobAndTheSameCommandCompletesIt) {
  const std::string more = "--strategy random --seed 6 --baselines none --confirm-top 0 --quiet";
  const std::string command = Mpi(3, TuneArgs(db_, 30, more));
  const pid_t job = Start(command);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(AwaitMeasurements(job, 6)) << ReadText(dir_ / "out.txt");
  const pid_t rank = RankProcess(db_, 2);
  ASSERT_GT(rank, 0) << "no rank 2 found";
  kill(rank, SIGKILL);
  const int status = Wait(job);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadText(dir_ / "out.txt");
  ExpectNothingLeft();
  const int64_t before = SqlCount(db_, "SELECT count(*) FROM measurements");
  EXPECT_LT(before, 60) << "the job finished before the kill";

  ExpectTheSameCommandCompletesIt(command, more);
}

TEST_F(MpiTune, SigtermToMpirunStopsEveryRankAndMarksTheRunInterrupted) {
  const std::string command =
      Mpi(3, TuneArgs(db_, 30, "--strategy random --baselines none --confirm-top 0"));
  const pid_t job = Start(command);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(AwaitMeasurements(job, 4)) << ReadText(dir_ / "out.txt");
  kill(job, SIGTERM);  // to mpirun, which passes it on to every rank
  Wait(job);
  ExpectNothingLeft();
  EXPECT_EQ(SqlRows(db_, "SELECT status FROM runs"), std::vector<std::string>{"interrupted"});
  EXPECT_EQ(CountOccurrences(ReadText(dir_ / "out.txt"), "run interrupted"), 1u)
      << ReadText(dir_ / "out.txt");
}

// SIGTERM to the coordinator alone (rank 0) while the device ranks measure:
// the outcomes in flight are recorded as they land (the pairs stay open to
// take them), the run ends interrupted with one line, and the same command
// completes it to exactly the uninterrupted set.
TEST_F(MpiTune, SigtermToTheCoordinatorKeepsWhatIsInFlightAndTheSameCommandCompletesIt) {
  const std::string more = "--strategy random --seed 6 --baselines none --confirm-top 0";
  const std::string command = Mpi(3, TuneArgs(db_, 30, more));
  const pid_t job = Start(command);
  ASSERT_GT(job, 0);
  ASSERT_TRUE(AwaitMeasurements(job, 4)) << ReadText(dir_ / "out.txt");
  const pid_t coordinator = RankProcess(db_, 0);
  ASSERT_GT(coordinator, 0) << "no rank 0 found";
  kill(coordinator, SIGTERM);
  Wait(job);
  ExpectNothingLeft();
  const std::string out = ReadText(dir_ / "out.txt");
  EXPECT_EQ(out.find("not dealt"), std::string::npos) << out;
  EXPECT_EQ(CountOccurrences(out, "run interrupted"), 1u) << out;
  EXPECT_EQ(SqlRows(db_, "SELECT status FROM runs"), std::vector<std::string>{"interrupted"});
  EXPECT_LT(SqlCount(db_, "SELECT count(*) FROM measurements"), 60) << "finished before the signal";

  ExpectTheSameCommandCompletesIt(command + " --quiet", more);
}

TEST_F(MpiTune, ARankThatCannotServeIsOneLineAndNothingIsWritten) {
  testing::CommandResult run = RunCommand(Mpi(3, TuneArgs(db_, 4, "--device opencl:9")));
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(CountOccurrences(run.output, "no device opencl:9"), 1u) << run.output;
  EXPECT_NE(run.output.find(" on "), std::string::npos) << run.output;  // rank and host
  EXPECT_FALSE(fs::exists(db_));
  ExpectNothingLeft();
}

// A file that one rank cannot read, as on a node that lacks it (mpirun's
// MPMD form gives that rank a command line of its own): whichever rank it
// is, the job ends with one line naming it, nothing written, and no rank
// left waiting for another (`timeout` turns a hang into exit 124).
TEST_F(MpiTune, AFileOneRankCannotReadEndsTheJobWithOneLine) {
  const std::string missing = (dir_ / "missing.yaml").string();
  const std::string good = BeastBinary() + TuneArgs(db_, 4, "");
  const std::string bad = BeastBinary() + TuneArgs(db_, 4, "--constraints " + missing);
  for (const auto& [coordinator, devices] : {std::pair{good, bad}, std::pair{bad, good}}) {
    testing::CommandResult run = RunCommand("timeout 300 " + std::string(kMpirun) + "1 " +
                                            coordinator + " : -np 2 " + devices);
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_NE(run.exit_code, 124) << "a rank was left waiting\n" << run.output;
    EXPECT_EQ(CountOccurrences(run.output, missing), 1u) << run.output;
    if (coordinator == good) {
      EXPECT_NE(run.output.find("beast tune: rank "), std::string::npos) << run.output;
    }
    EXPECT_FALSE(fs::exists(db_));
    ExpectNothingLeft();
  }
}

// opencl:local beside opencl:0: a rank dealt the local one could take
// device 0 too, and two ranks on one device disturb each other's times.
TEST_F(MpiTune, ALocalDeviceBesideOneNamedOutrightIsOneLine) {
  testing::CommandResult run = RunCommand(
      "timeout 300 " + Mpi(3, TuneArgs(db_, 4, "--device opencl:local --device opencl:0")));
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.exit_code, 124) << "a rank was left waiting\n" << run.output;
  EXPECT_EQ(CountOccurrences(run.output,
                             ": opencl:local and opencl:0 both given: a rank dealt opencl:local "
                             "could take opencl:0 too (two ranks on one device disturb each "
                             "other's times)\n"),
            1u)
      << run.output;
  EXPECT_NE(run.output.find("beast tune: rank 1 on "), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(db_));
  ExpectNothingLeft();
}

TEST_F(MpiTune, DevicesUnderMpirunListsEveryRanksDevicesWithItsHost) {
  testing::CommandResult run = RunCommand(Mpi(2, " devices --json"), false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json ranks = nlohmann::json::parse(run.output);
  ASSERT_EQ(ranks.size(), 2u) << run.output;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(ranks[i]["rank"], i);
    EXPECT_FALSE(ranks[i]["host"].get<std::string>().empty());
    EXPECT_GE(ranks[i]["devices"]["opencl"].size(), 1u);
  }
}

}  // namespace
}  // namespace beast
