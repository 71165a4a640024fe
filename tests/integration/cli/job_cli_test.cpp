// A batch job through the CLI on PoCL (issue 21's job file): `beast tune
// --problems FILE` tunes each problem once with its weight, combines with
// --problem, ends with the job's weighted sum of best times (equal to the
// sum computed from the pairs it lists), refuses a bad line naming FILE:LINE
// with nothing written; `beast query --problems FILE` reads the job back with
// the same sums and the time spent per problem; `beast export --problems FILE` serves every problem
// of the job and says which have a winner; a job killed midway resumes with the same command.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
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
using testing::CommandResult;
using testing::FreshTestDir;
using testing::JsonOf;
using testing::RunCommand;
using testing::SpawnProcess;
using testing::SqlCount;

const char kSmall[] = "gemm:M=32,N=24,K=16,transA=0,transB=0,dtype=f32";
const char kOther[] = "gemm:M=24,N=32,K=16,transA=0,transB=0,dtype=f32";
const char kThird[] = "gemm:M=16,N=32,K=24,transA=0,transB=0,dtype=f32";
const char kFourth[] = "gemm:M=40,N=24,K=8,transA=0,transB=0,dtype=f32";

class JobCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("job_cli"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Job(const std::string& text) const {
    const std::string path = (dir_ / "job.txt").string();
    std::ofstream(path) << text;
    return path;
  }
  CommandResult Tune(const std::string& args) const {
    return RunCommand(BeastBinary() + " tune --template gemm/tiled " + args +
                          " --device opencl:0 --db " + (dir_ / "beast.db").string() +
                          " --max-configs 3 --max-reps 3 --baselines none --no-cache "
                          "--compile-jobs 0 --confirm-top 0 --quiet",
                      false);
  }
  fs::path dir_;
};

TEST_F(JobCli, AJobIsTunedOnceAProblemAndSummedByWeight) {
  const std::string job = Job(std::string("# two shapes, one given twice\n") + kSmall + " x3\n" +
                              kOther + "\n" + "gemm:K=16,N=24,M=32 x2\n");
  CommandResult run = Tune("--problems " + job + " --problem " + kThird + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = JsonOf(run.output);
  ASSERT_EQ(summary["pairs"].size(), 3u) << run.output;
  const nlohmann::json& j = summary["job"];
  EXPECT_EQ(j["problems"], 3);
  EXPECT_EQ(j["layers"], 7);  // 3 + 2, 1, and the --problem's 1
  EXPECT_EQ(j["weights"][kSmall], 5);
  EXPECT_EQ(j["weights"][kOther], 1);
  EXPECT_EQ(j["weights"][kThird], 1);
  double sum = 0, seconds = 0;
  for (const auto& pair : summary["pairs"]) {
    sum += j["weights"][pair["problem"].get<std::string>()].get<double>() *
           pair["best"]["median_ms"].get<double>();
    EXPECT_GT(pair["seconds"].get<double>(), 0) << pair.dump();  // the time spent on it
    seconds += pair["seconds"].get<double>();
  }
  EXPECT_LE(seconds, summary["wall_seconds"].get<double>());
  EXPECT_NEAR(j["weighted_best_ms"].get<double>(), sum, 1e-9 * sum);
  EXPECT_TRUE(j["weighted_library_ms"].is_null());  // --baselines none
  EXPECT_TRUE(j["no_winner"].empty());

  CommandResult table = Tune("--problems " + job + " --problem " + kThird);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find(std::string("      problem ") + kSmall + " x5\n"), std::string::npos)
      << table.output;
  EXPECT_NE(table.output.find("job: 3 problems, 7 layers; weighted sum of the best times "),
            std::string::npos)
      << table.output;

  // beast query --problems reads the job back from the database: the same
  // weights and weighted sum as the tuning run's summary, each problem's
  // best time the fastest of its templates, its configs as recorded.
  CommandResult view = RunCommand(BeastBinary() + " query --db " + (dir_ / "beast.db").string() +
                                      " --problems " + job + " --json",
                                  false);
  ASSERT_EQ(view.exit_code, 0) << view.output;
  const nlohmann::json devices = nlohmann::json::parse(view.output);
  ASSERT_EQ(devices.size(), 1u) << view.output;
  const nlohmann::json& d = devices[0];
  ASSERT_EQ(d["problems"].size(), 2u) << view.output;  // the job file's two problems
  EXPECT_EQ(d["problems"][0]["problem"], kSmall);
  EXPECT_EQ(d["problems"][0]["weight"], 5);
  EXPECT_EQ(d["problems"][1]["problem"], kOther);
  EXPECT_EQ(d["problems"][1]["weight"], 1);
  EXPECT_EQ(d["layers"], 6);
  double view_sum = 0, view_seconds = 0;
  for (const auto& p : d["problems"]) {
    for (const auto& pair : summary["pairs"]) {
      if (pair["problem"] == p["problem"]) {
        EXPECT_EQ(p["best_ms"], pair["best"]["median_ms"]) << p.dump();
        EXPECT_EQ(p["configs_measured"], 3) << p.dump();  // --max-configs 3, all ok
      }
    }
    view_sum += p["weight"].get<double>() * p["best_ms"].get<double>();
    EXPECT_GT(p["seconds"].get<double>(), 0) << p.dump();  // time spent, from the records
    view_seconds += p["seconds"].get<double>();
  }
  EXPECT_DOUBLE_EQ(d["weighted_best_ms"].get<double>(), view_sum);
  EXPECT_DOUBLE_EQ(d["seconds"].get<double>(), view_seconds);
  // Only the first run measured (the second found everything recorded), and
  // its records lie inside its wall time.
  EXPECT_LE(view_seconds, summary["wall_seconds"].get<double>());
  double third_ms = 0;  // the --problem's, not in the job file
  for (const auto& pair : summary["pairs"])
    if (pair["problem"] == kThird) third_ms = pair["best"]["median_ms"].get<double>();
  EXPECT_NEAR(view_sum + third_ms, j["weighted_best_ms"].get<double>(), 1e-9 * view_sum);
  EXPECT_TRUE(d["no_winner"].empty());
  CommandResult view_table = RunCommand(
      BeastBinary() + " query --db " + (dir_ / "beast.db").string() + " --problems " + job, false);
  ASSERT_EQ(view_table.exit_code, 0) << view_table.output;
  EXPECT_NE(view_table.output.find(" problems, 6 layers\n"), std::string::npos)
      << view_table.output;
  EXPECT_NE(view_table.output.find("\nweighted sum of the best times "), std::string::npos)
      << view_table.output;
  EXPECT_NE(view_table.output.find(" s spent tuning them\n"), std::string::npos)
      << view_table.output;

  CommandResult library =
      RunCommand(BeastBinary() + " export --db " + (dir_ / "beast.db").string() + " --out " +
                     (dir_ / "lib").string() + " --problems " + job,
                 false);
  ASSERT_EQ(library.exit_code, 0) << library.output;
  EXPECT_NE(library.output.find("exported 3 tuned kernels"), std::string::npos) << library.output;
}

// A four-problem job with a time budget, killed (SIGKILL: nothing of it
// shuts down cleanly) once a third of its configs are recorded, then run
// again with the same command: it measures exactly what was left, and its
// summary's weighted sum is the one `beast query --problems` computes from
// the database.
TEST_F(JobCli, AKilledJobResumesWithTheSameCommandAndSumsAsTheQueryDoes) {
  const std::string job =
      Job(std::string(kSmall) + " x2\n" + kOther + "\n" + kThird + " x3\n" + kFourth + "\n");
  const std::string db = (dir_ / "beast.db").string();
  const std::vector<std::string> argv = {BeastBinary(),
                                         "tune",
                                         "--template",
                                         "gemm/tiled",
                                         "--problems",
                                         job,
                                         "--device",
                                         "opencl:0",
                                         "--db",
                                         db,
                                         "--max-configs",
                                         "6",
                                         "--max-reps",
                                         "3",
                                         "--time-budget",
                                         "5m",
                                         "--baselines",
                                         "none",
                                         "--no-cache",
                                         "--compile-jobs",
                                         "0",
                                         "--confirm-top",
                                         "0",
                                         "--quiet",
                                         "--json"};
  const int kAll = 4 * 6;
  auto recorded = [&] {
    return fs::exists(db) ? SqlCount(db, "SELECT count(*) FROM measurements") : 0;
  };
  const pid_t pid = SpawnProcess(argv, (dir_ / "killed.txt").string());
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (recorded() < kAll / 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ASSERT_TRUE(WIFSIGNALED(status)) << "the job ended before it was killed";
  const int64_t before = recorded();
  ASSERT_GE(before, kAll / 3);
  ASSERT_LT(before, kAll);

  std::string command;
  for (const std::string& arg : argv) command += (command.empty() ? "" : " ") + arg;
  CommandResult resumed = RunCommand(command, false);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  // Every config once: what the killed run recorded is kept and found, and
  // only the rest is measured now.
  EXPECT_EQ(recorded(), kAll);
  const nlohmann::json summary = JsonOf(resumed.output);
  int64_t measured_now = 0, found = 0;
  for (const auto& pair : summary["pairs"]) {
    measured_now += pair["measured"].get<int64_t>();
    found += pair["skipped"].get<int64_t>();
  }
  EXPECT_EQ(found, before);
  EXPECT_EQ(measured_now, kAll - before);
  const nlohmann::json& j = summary["job"];
  EXPECT_EQ(j["problems"], 4);
  EXPECT_EQ(j["layers"], 7);
  CommandResult view =
      RunCommand(BeastBinary() + " query --db " + db + " --problems " + job + " --json", false);
  ASSERT_EQ(view.exit_code, 0) << view.output;
  const nlohmann::json d = nlohmann::json::parse(view.output).at(0);
  ASSERT_EQ(d["problems"].size(), 4u) << view.output;
  double sum = 0;
  for (const auto& p : d["problems"]) {
    EXPECT_EQ(p["configs_measured"], 6) << p.dump();
    sum += p["weight"].get<double>() * p["best_ms"].get<double>();
  }
  EXPECT_NEAR(j["weighted_best_ms"].get<double>(), sum, 1e-9 * sum);
  EXPECT_DOUBLE_EQ(d["weighted_best_ms"].get<double>(), sum);
}

// A problem of the job that none of the run's templates computes still
// counts in the job's totals, as a problem without a winner (as `beast query
// --problems` counts it).
// Under a time budget a heavy layer first leaves the small one after it its
// floor of the time (it took 99.9% and left none), and a pair reached late
// still measures its default: every problem has a winner.
TEST_F(JobCli, UnderATimeBudgetASmallLayerAfterAHeavyOneStillGetsItsDefault) {
  const std::string job = Job("gemm:M=256,N=256,K=256\n" + std::string(kSmall) + "\n");
  CommandResult run = RunCommand(BeastBinary() + " tune --template gemm/tiled --problems " + job +
                                     " --device opencl:0 --db " + (dir_ / "beast.db").string() +
                                     " --time-budget 4s --max-reps 3 --baselines none --no-cache "
                                     "--compile-jobs 0 --confirm-top 0 --quiet --json",
                                 false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = JsonOf(run.output);
  ASSERT_EQ(summary["pairs"].size(), 2u) << run.output;
  for (const auto& pair : summary["pairs"]) EXPECT_GE(pair["measured"].get<int>(), 1) << pair;
  EXPECT_TRUE(summary["job"]["no_winner"].empty()) << summary["job"];
}

TEST_F(JobCli, AProblemNoTemplateComputesCountsWithoutAWinner) {
  const std::string conv = "conv2d:N=1,C=2,H=5,W=5,K=2,R=3,S=3,layout=NCHW,dtype=f32";
  const std::string conv_key =
      "conv2d:N=1,C=2,H=5,W=5,K=2,R=3,S=3,stride_h=1,stride_w=1,pad_h=0,pad_w=0,dilation_h=1,"
      "dilation_w=1,groups=1,layout=NCHW,dtype=f32";
  const std::string job = Job(std::string(kSmall) + " x2\n" + conv + " x3\n");
  CommandResult run = Tune("--problems " + job + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const nlohmann::json summary = JsonOf(run.output);
  ASSERT_EQ(summary["pairs"].size(), 1u) << run.output;
  const nlohmann::json& j = summary["job"];
  EXPECT_EQ(j["problems"], 2);
  EXPECT_EQ(j["layers"], 5);
  EXPECT_EQ(j["no_winner"], nlohmann::json::array({conv_key})) << j.dump();
  EXPECT_DOUBLE_EQ(j["weighted_best_ms"].get<double>(),
                   2 * summary["pairs"][0]["best"]["median_ms"].get<double>());
  CommandResult table = Tune("--problems " + job);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("job: 2 problems, 5 layers; "), std::string::npos) << table.output;
}

// `beast query --problems` keeps device rows apart: the same device under
// another driver is another row (the schema keeps its timings apart), so
// its best, counts and time are its own, and the table names the driver
// where two rows share a name.
TEST_F(JobCli, TheJobViewKeepsEachDriversResultsApart) {
  const std::string job = Job(std::string(kSmall) + " x2\n");
  const std::string db = (dir_ / "beast.db").string();
  ASSERT_EQ(Tune("--problems " + job).exit_code, 0);
  ASSERT_TRUE(testing::SqlExec(db, "UPDATE devices SET driver_version = '0.1-old'"));
  ASSERT_EQ(Tune("--problems " + job).exit_code, 0);
  ASSERT_EQ(SqlCount(db, "SELECT count(*) FROM devices"), 2);
  CommandResult view =
      RunCommand(BeastBinary() + " query --db " + db + " --problems " + job + " --json", false);
  ASSERT_EQ(view.exit_code, 0) << view.output;
  const nlohmann::json devices = nlohmann::json::parse(view.output);
  ASSERT_EQ(devices.size(), 2u) << view.output;
  EXPECT_EQ(devices[0]["driver"], "0.1-old") << view.output;
  EXPECT_NE(devices[1]["driver"], "0.1-old") << view.output;
  for (const auto& d : devices) {
    EXPECT_EQ(d["device"], devices[0]["device"]) << view.output;
    EXPECT_EQ(d["problems"][0]["configs_measured"], 3) << view.output;
    // Each row's own time: a run's first record is charged from the run's start.
    EXPECT_GT(d["seconds"].get<double>(), 0) << view.output;
  }
  CommandResult table =
      RunCommand(BeastBinary() + " query --db " + db + " --problems " + job, false);
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find(", driver 0.1-old): 1 problems, 2 layers\n"), std::string::npos)
      << table.output;
}

TEST_F(JobCli, ABadLineIsNamedAndNothingIsWritten) {
  const std::string job = Job(std::string(kSmall) + "\ngemm:M=4,N=4 x2\n");
  CommandResult run = RunCommand(BeastBinary() + " tune --template gemm/tiled --problems " + job +
                                     " --db " + (dir_ / "beast.db").string() + " 2>&1 >/dev/null",
                                 false);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output, "beast tune: " + job + ":2: problem \"gemm:M=4,N=4\": missing K\n");
  EXPECT_FALSE(fs::exists(dir_ / "beast.db"));
}

}  // namespace
}  // namespace beast
