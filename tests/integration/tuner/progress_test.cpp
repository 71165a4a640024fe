// The progress of `beast tune` on stderr, on PoCL: plain lines, every
// --progress-seconds, when stderr is not a terminal (a log file), the done
// count never going back and the last line reaching the total, and more of
// them while a config hangs (a ticker, not a finished config, prints); a live line
// with a bar, redrawn in place, on a terminal (a pseudo-terminal made by
// script(1)); nothing with --quiet.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("progress"); }
  void TearDown() override { fs::remove_all(dir_); }

  // A small tuning command: 6 configs of gemm/tiled (the default and 5),
  // each compiled from scratch (no program cache, a PoCL kernel cache of its
  // own): a warm PoCL cache makes the run too short for the ticker.
  std::string Tune(const std::string& db, const std::string& extra) const {
    return "POCL_CACHE_DIR=" + (dir_ / "pocl").string() + " " + BeastBinary() +
           " tune --template gemm/tiled --problem gemm:M=64,N=64,K=64 --device opencl:0 "
           "--max-configs 6 --baselines none --confirm-top 0 --max-reps 5 --no-cache --db " +
           (dir_ / db).string() + " " + extra;
  }

  std::string ReadFile(const std::string& name) const {
    std::ifstream in(dir_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  fs::path dir_;
};

TEST_F(ProgressTest, PlainLinesComeEveryIntervalAndEndAtTheTotal) {
  const std::string log = (dir_ / "stderr.log").string();
  testing::CommandResult run =
      RunCommand(Tune("plain.db", "--progress-seconds 0.2 2>" + log), false);
  ASSERT_EQ(run.exit_code, 0) << run.output << ReadFile("stderr.log");
  const std::regex line_form(
      R"(\[1/1\] gemm/tiled (\d+)/6 configs(, [0-9.]+ configs/s, ETA \d+m\d\ds)?, best )"
      R"((none yet|[0-9.]+ ms \([0-9.]+ GFLOP/s\)), (\d+) failed( \(.*\))? \| )"
      R"(gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32)");
  std::istringstream lines(ReadFile("stderr.log"));
  std::vector<int> done;
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (line.rfind("[1/1] ", 0) != 0) continue;
    ASSERT_TRUE(std::regex_match(line, m, line_form)) << line;
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;  // no terminal codes in a log
    done.push_back(std::stoi(m[1]));
  }
  // The ticker adds lines while configs run: the run takes well over 0.4 s.
  ASSERT_GE(done.size(), 2u) << ReadFile("stderr.log");
  for (size_t i = 1; i < done.size(); ++i) EXPECT_LE(done[i - 1], done[i]);
  EXPECT_EQ(done.back(), 6);
}

// Under a time budget the whole space (60,008 configs) is selected, but the
// run ends with the budget: no ETA is later than that (it said hours).
TEST_F(ProgressTest, UnderATimeBudgetTheEtaIsNeverPastIt) {
  const std::string log = (dir_ / "budget.log").string();
  testing::CommandResult run = RunCommand(
      "POCL_CACHE_DIR=" + (dir_ / "pocl").string() + " " + BeastBinary() +
          " tune --template gemm/tiled --problem gemm:M=64,N=64,K=64 --device opencl:0 "
          "--time-budget 3s --baselines none --confirm-top 0 --max-reps 3 --no-cache --db " +
          (dir_ / "budget.db").string() + " --progress-seconds 0.3 2>" + log,
      false);
  ASSERT_EQ(run.exit_code, 0) << run.output << ReadFile("budget.log");
  const std::regex eta(R"(ETA (\d+)m(\d\d)s)");
  std::istringstream lines(ReadFile("budget.log"));
  int etas = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_FALSE(std::regex_search(line, std::regex(R"(ETA \d+h)"))) << line;
    std::smatch m;
    if (!std::regex_search(line, m, eta)) continue;
    ++etas;
    EXPECT_LE(std::stoi(m[1]) * 60 + std::stoi(m[2]), 3) << line;
  }
  EXPECT_GE(etas, 1) << ReadFile("budget.log");
}

TEST_F(ProgressTest, TheTickerPrintsWhileAConfigHangs) {
  // test/faulty's MODE 2 never ends: it runs into its 2 s limit, and only the
  // ticker can print while it does (no config finishes).
  const std::string log = (dir_ / "hang.log").string();
  testing::CommandResult run =
      RunCommand(BeastBinary() +
                     " tune --templates " BEAST_TEST_SOURCE_DIR
                     "/tests/data/kernel_templates --template test/faulty --problem "
                     "gemm:M=8,N=8,K=8 --device opencl:0 --constraint 'MODE == 2' "
                     "--timeout-seconds 2 --baselines none --confirm-top 0 --no-cache "
                     "--progress-seconds 0.3 --db " +
                     (dir_ / "hang.db").string() + " 2>" + log,
                 false);
  ASSERT_EQ(run.exit_code, 0) << run.output << ReadFile("hang.log");
  const std::string lines = "\n" + ReadFile("hang.log");
  // The default config (MODE 0) done, the hanging one running: a line every
  // 0.3 s for 2 s, the rate falling.
  EXPECT_GE(testing::CountOccurrences(lines, "\n[1/1] test/faulty 1/2 configs, "), 4u) << lines;
  EXPECT_EQ(testing::CountOccurrences(lines, "\n[1/1] test/faulty 2/2 configs, "), 1u) << lines;
  EXPECT_NE(lines.find("1 failed (1 timeout) | gemm:M=8,N=8,K=8"), std::string::npos) << lines;
}

TEST_F(ProgressTest, ATerminalGetsALiveLineWithABar) {
  // script(1) runs the command on a pseudo-terminal and copies what it
  // writes there (stdout and stderr) to its own stdout.
  testing::CommandResult run =
      RunCommand("script -qefc '" + Tune("tty.db", "") + "' /dev/null", false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // Redrawn in place: a carriage return and erase-line before each.
  const std::regex bar(R"(\r\x1b\[K\[[#-]{20}\] +\d+% \[1/1\] gemm/tiled \d+/6 configs)");
  const auto count = std::distance(std::sregex_iterator(run.output.begin(), run.output.end(), bar),
                                   std::sregex_iterator());
  EXPECT_GE(count, 2) << run.output;
  EXPECT_NE(run.output.find("\r\x1b[K[####################] 100% [1/1] gemm/tiled 6/6 configs"),
            std::string::npos)
      << run.output;
}

TEST_F(ProgressTest, QuietPrintsNoProgress) {
  const std::string log = (dir_ / "quiet.log").string();
  testing::CommandResult run =
      RunCommand(Tune("quiet.db", "--quiet --progress-seconds 0.1 2>" + log), false);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(ReadFile("quiet.log"), "");
}

}  // namespace
}  // namespace beast
