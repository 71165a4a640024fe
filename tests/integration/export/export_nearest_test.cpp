// The nearest-tuned tier of beast export, without building the library (the
// consumer in export_test.cpp runs what it exports): `beast export --problem /
// --shapes` names the shapes, the export says which winner each one gets or
// that it stays generic, bad shape files get one line, and `beast export
// --check` follows the nearest choices as the database moves on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/export_fixture.hpp"

namespace beast {
namespace {

using testing::BeastBinary;
using testing::CommandResult;
using testing::RunCommand;
namespace fs = std::filesystem;

class ExportNearestTest : public testing::ExportFixture {
 protected:
  std::string Key(const std::string& text) { return Problem::Parse(text).Key(); }
  std::string Device() { return device_.name; }
};

TEST_F(ExportNearestTest, CliNamesTheWinnerEachShapeGetsOrThatItStaysGeneric) {
  std::map<std::string, std::string> winners = RecordWinners();
  const std::string vector_winner = RecordVectorWinner();
  const std::string shapes = (dir_ / "shapes.txt").string();
  std::ofstream(shapes) << "# shapes the framework calls\n"
                           "gemm:M=60,N=48,K=40,dtype=f32   # near the tuned 64x48x40\n"
                           "\n"
                           "  gemm:M=64,N=60,K=64,transB=1,dtype=f32\n";
  CommandResult r = RunCommand(BeastBinary() + " export --db " + db_ + " --out " +
                               options_.out_dir + " --shapes " + shapes + " --problem " +
                               "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,layout=NHWC");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string g1 = Key(testing::kTunedProblems[0]);
  char distance[32];
  std::snprintf(distance, sizeof distance, "%.3f", std::log2(64.0 / 60.0));
  EXPECT_NE(r.output.find("\n  " + Key("gemm:M=60,N=48,K=40") + "  nearest: gemm/tiled  " +
                          winners[g1] + "  tuned for " + g1 + " (distance " + distance + ") on " +
                          Device() + " (1 ms there)\n"),
            std::string::npos)
      << r.output;
  const std::string on = " on " + Device() + " (" + device_.driver_version + "): ";
  EXPECT_NE(r.output.find("\ngeneric " + Key("gemm:M=64,N=60,K=64,transB=1") + on +
                          "none of the 1 winners of 1 tuned problems of the same kind fits "
                          "(gemm/tiled " +
                          vector_winner + " of " + Key(testing::kVectorProblem) +
                          ": violates hard constraint"),
            std::string::npos)
      << r.output;
  EXPECT_NE(
      r.output.find("\ngeneric " +
                    Key("conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,layout=NHWC") + on +
                    "no tuned problem of the same kind (op, layout, transpositions); the "
                    "generic kernel runs\n"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("exported 7 tuned kernels"), std::string::npos) << r.output;
}

// A nearer problem's winner that the new shape's space would not propose
// (a soft constraint fails for it: a tile far larger than the shape, say)
// gives way to a farther one it would; with none such, the nearest that runs.
TEST_F(ExportNearestTest, AWinnerTheNewShapesSpaceWouldProposeGoesFirst) {
  const std::string want = Key("gemm:M=64,N=64,K=16,dtype=f32");
  const std::string nearer = Key("gemm:M=128,N=128,K=16,dtype=f32");  // distance sqrt(2)
  const std::string farther = Key("gemm:M=32,N=32,K=32,dtype=f32");   // distance sqrt(3)
  SpaceSpec spec = SpaceSpec::Load(options_.templates_dir, "gemm/tiled");
  BoundSpace space(spec, Problem::Parse(want), device_);
  auto first = [&](const std::string& key, bool soft_holds) {
    for (const Config& c : Configs(key)) {
      std::string why;
      if (space.Check(c, &why, /*hard_only=*/true) && space.Check(c, &why) == soft_holds) {
        return c.Key();
      }
    }
    ADD_FAILURE() << "no config of " << key << " whose soft constraints for " << want
                  << (soft_holds ? " hold" : " fail") << " and whose hard ones hold";
    return std::string();
  };
  const std::string nearer_winner = first(nearer, false), farther_winner = first(farther, true);
  ASSERT_FALSE(nearer_winner.empty() || farther_winner.empty());
  auto chosen = [&]() {
    CommandResult r = RunCommand(BeastBinary() + " export --db " + db_ + " --out " +
                                 options_.out_dir + " --problem " + want);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    const std::string line = "\n  " + want + "  nearest: gemm/tiled  ";
    const size_t at = r.output.find(line);
    if (at == std::string::npos) return r.output;
    return r.output.substr(at + line.size(), r.output.find('\n', at + 1) - at - line.size());
  };
  Record(nearer, Config::ParseKey(nearer_winner), 1.0);
  EXPECT_EQ(chosen(), nearer_winner + "  tuned for " + nearer + " (distance 1.414) on " + Device() +
                          " (1 ms there)");
  Record(farther, Config::ParseKey(farther_winner), 1.0);
  EXPECT_EQ(chosen(), farther_winner + "  tuned for " + farther + " (distance 1.732) on " +
                          Device() + " (1 ms there)");
}

TEST_F(ExportNearestTest, ABadShapesFileIsOneLine) {
  RecordWinners();
  const std::string shapes = (dir_ / "shapes.txt").string();
  std::ofstream(shapes) << "gemm:M=60,N=48,K=40\n"
                           "gemm:M=60,N=48,K=0\n";
  CommandResult r = RunCommand(BeastBinary() + " export --db " + db_ + " --out " +
                               options_.out_dir + " --shapes " + shapes);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_EQ(r.output.rfind("beast export: " + shapes + ":2: ", 0), 0u) << r.output;
  EXPECT_FALSE(fs::exists(options_.out_dir));

  r = RunCommand(BeastBinary() + " export --db " + db_ + " --out " + options_.out_dir +
                 " --shapes " + shapes + ".missing");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "beast export: cannot read --shapes " + shapes + ".missing\n");
}

TEST_F(ExportNearestTest, CheckFollowsTheNearestChoices) {
  std::map<std::string, std::string> winners = RecordWinners();
  const std::string vector_winner = RecordVectorWinner();
  options_.requested = {"gemm:M=60,N=48,K=40", "gemm:M=64,N=60,K=64,transB=1"};
  ExportLibrary(options_);
  ExportCheck fresh = CheckExport(options_);
  EXPECT_EQ(fresh.entries, testing::kTunedProblems.size() + 2);  // + vector problem + nearest
  EXPECT_EQ(fresh.stale, std::vector<std::string>{});

  // A faster config of the nearest problem: the nearest entry follows it.
  const std::string g1 = Key(testing::kTunedProblems[0]);
  const std::vector<Config> configs = Configs(g1);
  Record(g1, configs[1], 0.5);
  // A faster config of kVectorProblem whose vectors divide 60 now fits 64x60x64.
  const std::string vp = Key(testing::kVectorProblem);
  std::string fits;
  for (const Config& c : Configs(vp)) {
    if (("," + c.Key() + ",").find(",VWN=8,") == std::string::npos) {
      fits = c.Key();
      Record(vp, c, 0.5);
      break;
    }
  }
  ASSERT_FALSE(fits.empty());
  const std::string on = " on " + Device() + ": ";
  EXPECT_EQ(
      CheckExport(options_).stale,
      (std::vector<std::string>{
          g1 + on + "exported gemm/tiled " + winners[g1] +
              " (1 ms), the database's best is now gemm/tiled " + configs[1].Key() + " (0.5 ms)",
          vp + on + "exported gemm/tiled " + vector_winner +
              " (1 ms), the database's best is now gemm/tiled " + fits + " (0.5 ms)",
          Key("gemm:M=60,N=48,K=40") + on + "exported nearest gemm/tiled " + winners[g1] + " of " +
              g1 + ", now nearest gemm/tiled " + configs[1].Key() + " of " + g1,
          Key("gemm:M=64,N=60,K=64,transB=1") + on +
              "runs the generic kernel in the export, now nearest gemm/tiled " + fits + " of " +
              vp + " fits it"}));
  ExportLibrary(options_);  // exporting again makes it current
  EXPECT_EQ(CheckExport(options_).stale, std::vector<std::string>{});
}

}  // namespace
}  // namespace beast
