// A template whose rendering never ends, made for real (issue 16): the
// test template test/slow_render loops for ever in Jinja2 for MODE 1. The
// render is bounded by --timeout-seconds like a build and a run: that config
// is recorded `timeout` (its error says the render) and the run goes on with
// a fresh renderer; a rerun skips it; Ctrl-C or SIGTERM during the render
// ends the run within 2 s, interrupted, with no process left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

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

class RenderHang : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshTestDir("render_hang"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Tune(const std::string& extra) const {
    return BeastBinary() + " tune --templates " + std::string(BEAST_TEST_SOURCE_DIR) +
           "/tests/data/kernel_templates --template test/slow_render --problem "
           "gemm:M=16,N=16,K=16 --device opencl:0 --db " +
           (dir_ / "beast.db").string() + " --cache-dir " + (dir_ / "cache").string() +
           " --max-reps 3 --baselines none --confirm-top 0 --quiet " + extra;
  }
  // Starts a run whose renders may take a minute, waits until MODE=0 is
  // recorded and MODE=1's render has begun, sends `sig`, and says how long
  // the run took to end and how.
  void InterruptTheRender(int sig) {
    const std::string db = (dir_ / "beast.db").string();
    const pid_t beast = SpawnShell("exec " + Tune("--compile-jobs 0 --timeout-seconds 60") + " >" +
                                   (dir_ / "out.txt").string() + " 2>&1");
    ASSERT_GT(beast, 0);
    std::set<pid_t> seen;
    const Clock::time_point give_up = Clock::now() + std::chrono::minutes(2);
    int status = 0;
    while (Clock::now() < give_up && SqlCount(db, "SELECT count(*) FROM measurements") < 1) {
      ASSERT_NE(waitpid(beast, &status, WNOHANG), beast) << ReadFile(dir_ / "out.txt");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));  // into MODE=1's render
    for (const auto& child : Children(beast)) seen.insert(child.pid);
    const Clock::time_point sent = Clock::now();
    kill(beast, sig);
    while (waitpid(beast, &status, WNOHANG) != beast && Clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
    EXPECT_LT(seconds, 2.0) << ReadFile(dir_ / "out.txt");
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130) << ReadFile(dir_ / "out.txt");
    EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), 1);
    EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), 1);
    EXPECT_FALSE(seen.empty());
    for (pid_t pid : seen) EXPECT_FALSE(Alive(pid)) << "process " << pid << " outlived the run";
  }
  fs::path dir_;
};

TEST_F(RenderHang, AnEndlessRenderCostsOneConfigAndARerunSkipsIt) {
  const Clock::time_point start = Clock::now();
  CommandResult run = RunCommand(Tune("--timeout-seconds 3 --json"), false);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string db = (dir_ / "beast.db").string();
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements WHERE status = 'ok'"), 1);
  EXPECT_EQ(SqlCount(db,
                     "SELECT count(*) FROM measurements m JOIN configs c ON c.id = m.config_id "
                     "WHERE c.config_key = 'MODE=1' AND m.status = 'timeout' AND m.error_text LIKE "
                     "'render: the template did not render within 3 s (%); the renderer was "
                     "stopped'"),
            1);
  // The compile pool's worker and then the tuner's renderer each give it 3 s.
  EXPECT_LT(seconds, 30.0);

  const Clock::time_point again_start = Clock::now();
  CommandResult again = RunCommand(Tune("--timeout-seconds 3 --json"), false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(JsonOf(again.output)["pairs"][0]["measured"], 0);
  EXPECT_EQ(JsonOf(again.output)["pairs"][0]["skipped"], 2);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - again_start).count(), 15.0);
}

TEST_F(RenderHang, CtrlCDuringARenderEndsTheRunWithinTwoSeconds) { InterruptTheRender(SIGINT); }

TEST_F(RenderHang, SigtermDuringARenderEndsTheRunWithinTwoSeconds) { InterruptTheRender(SIGTERM); }

}  // namespace
}  // namespace beast
