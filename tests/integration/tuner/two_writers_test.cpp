// Two `beast tune` processes writing one new database at once (the real
// binary, on the OpenCL CPU device): both exit 0 with no "database is locked",
// their runs overlap in time, and every measurement of both is in the file,
// exactly once, with its provenance; two processes tuning the very same pair
// at once also both finish, and each config is recorded once.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/command_runner.hpp"
#include "support/process_watch.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::SpawnProcess;
using testing::SqlRows;

const char kGemmA[] = "gemm:M=64,N=64,K=64";
const char kGemmB[] = "gemm:M=32,N=64,K=64";
const char kConv[] = "conv2d:N=1,C=4,H=8,W=8,K=4,R=3,S=3,stride=1,pad=1";  // 8 of its configs fit

std::vector<std::string> TuneArgs(const std::string& db, const std::vector<std::string>& pairs) {
  std::vector<std::string> args = {"tune",          "--device", "opencl:0",   "--db", db,
                                   "--max-configs", "8",        "--max-reps", "3",    "--quiet"};
  args.insert(args.end(), pairs.begin(), pairs.end());
  return args;
}

// Starts the beast binary with stdout and stderr into `log`.
pid_t Spawn(std::vector<std::string> args, const std::string& log) {
  args.insert(args.begin(), BeastBinary());
  return SpawnProcess(args, log);
}

int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TwoWriters : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("two_writers");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts both at once on the same (not yet existing) database and waits.
  void RunBoth(const std::vector<std::string>& first, const std::vector<std::string>& second) {
    const std::string log_a = (dir_ / "a.log").string(), log_b = (dir_ / "b.log").string();
    pid_t a = Spawn(TuneArgs(db_, first), log_a);
    pid_t b = Spawn(TuneArgs(db_, second), log_b);
    int code_a = Wait(a), code_b = Wait(b);
    output_a_ = ReadLog(log_a);
    output_b_ = ReadLog(log_b);
    EXPECT_EQ(code_a, 0) << output_a_;
    EXPECT_EQ(code_b, 0) << output_b_;
    for (const std::string* output : {&output_a_, &output_b_}) {
      EXPECT_EQ(output->find("database is locked"), std::string::npos) << *output;
      EXPECT_EQ(output->find("database is busy"), std::string::npos) << *output;
    }
    EXPECT_EQ(SqlRows(db_, "PRAGMA integrity_check"), std::vector<std::string>{"ok"});
    // Both runs finished, and they overlapped: each started before the other ended.
    EXPECT_EQ(SqlRows(db_, "SELECT status FROM runs ORDER BY id"),
              (std::vector<std::string>{"finished", "finished"}));
    EXPECT_EQ(SqlRows(db_,
                      "SELECT count(*) FROM runs r1 JOIN runs r2 ON r1.id < r2.id "
                      "WHERE r1.started_at < r2.finished_at AND r2.started_at < r1.finished_at"),
              std::vector<std::string>{"1"})
        << "the two runs did not overlap in time";
  }

  fs::path dir_;
  std::string db_;
  std::string output_a_, output_b_;
};

TEST_F(TwoWriters, DifferentPairsBothFinishAndNothingIsLost) {
  RunBoth({"--template", "gemm/tiled", "--problem", kGemmA, "--problem", kGemmB},
          {"--template", "conv2d/direct_nchw", "--problem", kConv});
  // 8 configs for each (template, problem) pair, each recorded once; each
  // process's measurements are all of its own run.
  EXPECT_EQ(SqlRows(db_,
                    "SELECT t.name || ' ' || substr(p.key, 1, instr(p.key, ',') - 1) || ' ' || "
                    "count(*) || ' ' || count(DISTINCT m.config_id) || ' ' || "
                    "count(DISTINCT m.run_id) FROM measurements m "
                    "JOIN problems p ON p.id = m.problem_id JOIN configs c ON c.id = m.config_id "
                    "JOIN templates t ON t.id = c.template_id "
                    "GROUP BY t.name, p.key ORDER BY t.name, p.key"),
            (std::vector<std::string>{
                "conv2d/direct_nchw conv2d:N=1 8 8 1",
                "gemm/tiled gemm:M=32 8 8 1",
                "gemm/tiled gemm:M=64 8 8 1",
            }));
  EXPECT_EQ(SqlRows(db_,
                    "SELECT count(DISTINCT m.run_id) FROM measurements m "
                    "JOIN configs c ON c.id = m.config_id GROUP BY c.template_id"),
            (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(SqlRows(db_, "SELECT count(DISTINCT run_id) FROM measurements"),
            std::vector<std::string>{"2"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM measurements"), std::vector<std::string>{"24"});
  EXPECT_EQ(SqlRows(db_,
                    "SELECT count(*) FROM configs c WHERE NOT EXISTS "
                    "(SELECT 1 FROM measurements m WHERE m.config_id = c.id)"),
            std::vector<std::string>{"0"});  // no config row without its measurement
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM devices"), std::vector<std::string>{"1"});
  // Every measurement succeeded (these spaces hold no config that fails on
  // PoCL), validated within the bound, and knows what it was taken with.
  EXPECT_EQ(SqlRows(db_, "SELECT status || ' ' || count(*) FROM measurements GROUP BY status"),
            std::vector<std::string>{"ok 24"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM measurements WHERE max_error <= 2"),
            std::vector<std::string>{"24"});
  EXPECT_EQ(SqlRows(db_,
                    "SELECT count(*) FROM measurement_provenance WHERE compiler = 'opencl' "
                    "AND compiler_version <> '' AND beast_version <> '' AND device_name <> '' "
                    "AND driver_version <> '' AND template_hash <> '' AND status = 'ok' AND "
                    "json_array_length(samples_json) >= 3"),
            std::vector<std::string>{"24"});
}

TEST_F(TwoWriters, SamePairAtOnceRecordsEachConfigOnce) {
  RunBoth({"--template", "gemm/tiled", "--problem", kGemmA},
          {"--template", "gemm/tiled", "--problem", kGemmA});
  // The same seed picks the same 8 configs; whichever process measured a config
  // first is kept, the other's result is dropped.
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) || ' ' || count(DISTINCT config_id) FROM measurements"),
            std::vector<std::string>{"8 8"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM configs"), std::vector<std::string>{"8"});
  EXPECT_EQ(SqlRows(db_, "SELECT count(*) FROM measurements WHERE is_default = 1"),
            std::vector<std::string>{"1"});
}

}  // namespace
}  // namespace beast
