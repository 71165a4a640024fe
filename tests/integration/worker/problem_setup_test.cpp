// A problem whose inputs and reference the device worker cannot make within
// --setup-seconds: no config is to blame, so none is recorded; the run stops
// with one line naming the problem (exit 4) and is marked interrupted. The
// first request of the problem here is CLBlast's baseline (the default
// --baselines auto), which makes the problem as a config would. (Before,
// every config of the problem was recorded `timeout` after the whole limit,
// ten minutes each.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;
using testing::SqlCount;
using testing::SqlRows;

// The reference of a 3072^3 GEMM takes far longer than 1 s on any host
// (1536^3, an eighth of it, took 2.5 s here: worker_test.cpp).
TEST(ProblemSetup, PastItsLimitStopsTheRunWithOneLineAndBlamesNoConfig) {
  const fs::path dir = testing::FreshTestDir("problem_setup");
  const std::string db = (dir / "beast.db").string();
  const std::string problem = "gemm:M=3072,N=3072,K=3072,transA=0,transB=0,dtype=f32";
  testing::CommandResult run =
      RunCommand(BeastBinary() + " tune --template gemm/tiled --problem " + problem +
                 " --device opencl:0 --max-configs 3 --setup-seconds 1 --timeout-seconds 1 "
                 "--confirm-top 0 --compile-jobs 0 --quiet --db " +
                 db);
  EXPECT_EQ(run.exit_code, 4) << run.output;
  EXPECT_EQ(run.output.rfind("beast tune: " + problem +
                                 ": the device worker could not make the problem's inputs and "
                                 "reference: killed after ",
                             0),
            0u)
      << run.output;
  EXPECT_NE(run.output.find(" past the limit of 1 s for that (raise --setup-seconds, or leave "
                            "the problem out; what was measured is kept)\n"),
            std::string::npos)
      << run.output;
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM measurements"), 0);
  EXPECT_EQ(SqlCount(db, "SELECT count(*) FROM baselines"), 0);
  EXPECT_EQ(SqlRows(db, "SELECT status FROM runs"), std::vector<std::string>{"interrupted"});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace beast
