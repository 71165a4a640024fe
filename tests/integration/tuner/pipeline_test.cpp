// The whole pipeline on the OpenCL CPU device (PoCL) through the beast CLI:
// space -> prune -> render -> compile -> benchmark -> validate -> SQLite ->
// query -> export, plus resume and the one-line errors for bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::RunCommand;

const char kConv[] = "conv2d:N=1,C=6,H=13,W=11,K=10,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f32";
const char kGemm[] = "gemm:M=72,N=40,K=56,dtype=f32";

class Pipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("pipeline");
    db_ = (dir_ / "beast.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string TuneCommand(const std::string& db) const {
    return BeastBinary() + " tune --template conv2d/direct_nchw --template gemm/tiled --problem " +
           kConv + " --problem " + kGemm + " --device opencl:0 --db " + db +
           " --max-configs 6 --max-reps 5 --quiet";
  }
  fs::path dir_;
  std::string db_;
};

TEST_F(Pipeline, TunesRecordsResumesQueriesAndExports) {
  auto first = RunCommand(TuneCommand(db_));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("winners on opencl:0"), std::string::npos) << first.output;

  results_db::Store store = results_db::Store::OpenExisting(db_);
  std::vector<results_db::ResultRow> rows = store.Query({});
  ASSERT_EQ(rows.size(), 12u);  // 6 configs (default included) per pair
  int defaults = 0;
  // Every config of these spaces runs correctly on PoCL: all 12 are ok,
  // validated within the bound, timed.
  std::set<std::string> measured;
  for (const auto& r : rows) {
    defaults += r.is_default;
    EXPECT_EQ(r.status, beast::Status::kOk) << r.template_name << " " << r.error_text;
    ASSERT_TRUE(r.max_error.has_value());
    EXPECT_LE(*r.max_error, 2.0);  // within the validation bound
    ASSERT_TRUE(r.median_ms.has_value());
    EXPECT_GT(*r.median_ms, 0.0);
    measured.insert(r.template_name + " " + r.config_key + " " + std::to_string(*r.median_ms));
  }
  EXPECT_EQ(defaults, 2);
  results_db::QueryFilter best;
  best.best_only = true;
  std::vector<results_db::ResultRow> winners = store.Query(best);
  ASSERT_EQ(winners.size(), 2u);
  for (const auto& w : winners) {
    ASSERT_TRUE(w.speedup_vs_default.has_value());
    EXPECT_GE(*w.speedup_vs_default, 1.0);  // the best is at least as fast as the default
  }

  // The same command again measures nothing: every selected config is
  // skipped as recorded, and the records are the first run's.
  auto second = RunCommand(TuneCommand(db_) + " --json", false);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const nlohmann::json resumed = nlohmann::json::parse(second.output);
  ASSERT_EQ(resumed["pairs"].size(), 2u) << second.output;
  for (const auto& pair : resumed["pairs"]) {
    EXPECT_EQ(pair["selected"], 6) << pair.dump();
    EXPECT_EQ(pair["measured"], 0) << pair.dump();
    EXPECT_EQ(pair["skipped"], 6) << pair.dump();
  }
  std::set<std::string> again;
  for (const auto& r : store.Query({}))
    again.insert(r.template_name + " " + r.config_key + " " + std::to_string(r.median_ms.value()));
  EXPECT_EQ(again, measured);

  auto query = RunCommand(BeastBinary() + " query --db " + db_ + " --best --json", false);
  ASSERT_EQ(query.exit_code, 0) << query.output;
  EXPECT_EQ(nlohmann::json::parse(query.output).size(), 2u) << query.output;
  auto csv = RunCommand(BeastBinary() + " query --db " + db_ + " --csv --problem " + kGemm, false);
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(CountOccurrences(csv.output, "\n"), 7u);  // header + 6 rows

  // The export holds exactly the two winners query --best names.
  auto exported =
      RunCommand(BeastBinary() + " export --db " + db_ + " --out " + (dir_ / "tuned").string());
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  EXPECT_EQ(exported.output.rfind("exported 2 tuned kernels from ", 0), 0u) << exported.output;
  for (const auto& w : nlohmann::json::parse(query.output)) {
    const std::string line = "  " + w["problem"].get<std::string>() + "  " +
                             w["template"].get<std::string>() + "  " +
                             w["config"].get<std::string>() + "  on ";
    EXPECT_NE(exported.output.find(line), std::string::npos) << line << "\n" << exported.output;
  }
  EXPECT_TRUE(fs::exists(dir_ / "tuned" / "CMakeLists.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "tuned" / "include" / "beast_tuned.h"));
}

TEST_F(Pipeline, BadInputIsOneLineAndWritesNothing) {
  struct Case {
    std::string args;
    int exit_code;
    std::string message;
  };
  const std::string db = (dir_ / "never.db").string();
  const std::vector<Case> cases = {
      {"tune --template conv2d/nope --problem " + std::string(kConv) + " --db " + db, 1,
       "beast tune: unknown template \"conv2d/nope\" (known: "},
      {"tune --template gemm/tiled --problem gemm:M=4,N=4 --db " + db, 2,
       "beast tune: problem \"gemm:M=4,N=4\": missing K"},
      {"tune --template gemm/tiled --problem " + std::string(kGemm) + " --device opencl:7 --db " +
           db,
       1, "beast tune: no device opencl:7 ("},
      {"tune --template gemm/tiled --problem " + std::string(kGemm) + " --device metal:0 --db " +
           db,
       2, "beast tune: device \"metal:0\": unknown backend \"metal\""},
      {"tune --template gemm/tiled --problem " + std::string(kGemm) +
           " --constraint \"hard: MWG > 100000\" --db " + db,
       1,
       "beast tune: every space is empty, nothing to tune: gemm/tiled on "
       "gemm:M=72,N=40,K=56,transA=0,transB=0,dtype=f32: hard "
       "constraint \"MWG > 100000\" (command line) removed the last configs"},
      {"tune --template gemm/tiled --problem " + std::string(kGemm) +
           " --constraint \"NOPE > 1\" --db " + db,
       1, "beast tune: command line: constraint \"NOPE > 1\" names unknown parameter \"NOPE\""},
      {"space gemm/tiled --problem " + std::string(kGemm) + " --constraint \"hard: MWG > 100000\"",
       1, "beast space: the space of gemm/tiled is empty for"},
      // A dtype the template does not list (test/launch_params renders f32
      // only): refused before anything is written.
      {"tune --templates " BEAST_TEST_SOURCE_DIR
       "/tests/data/kernel_templates --template test/launch_params --problem "
       "gemm:M=8,N=8,K=8,dtype=f16 --db " +
           db,
       2,
       "beast tune: template test/launch_params does not support dtype f16 (its dtypes: f32), "
       "problem gemm:M=8,N=8,K=8,transA=0,transB=0,dtype=f16\n"},
      {"space --templates " BEAST_TEST_SOURCE_DIR
       "/tests/data/kernel_templates test/launch_params --problem gemm:M=8,N=8,K=8,dtype=bf16",
       2, "beast space: template test/launch_params does not support dtype bf16 (its dtypes: f32)"},
      {"tune --template gemm/tiled --problem gemm:M=8,N=8,K=8,dtype=f8 --db " + db, 2,
       "beast tune: problem \"gemm:M=8,N=8,K=8,dtype=f8\": dtype \"f8\" is not one of f32, f64, "
       "f16, bf16\n"},
  };
  for (const auto& c : cases) {
    auto r = RunCommand(BeastBinary() + " " + c.args + " 2>&1 >/dev/null", false);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind(c.message, 0), 0u) << c.args << "\n" << r.output;
    EXPECT_EQ(CountOccurrences(r.output, "\n"), 1u) << r.output;
    EXPECT_FALSE(fs::exists(db)) << c.args;
  }
  std::ofstream(dir_ / "garbage.db")
      << "this is not a database, just text that is long enough for a header";
  auto q = RunCommand(
      BeastBinary() + " query --db " + (dir_ / "garbage.db").string() + " 2>&1 >/dev/null", false);
  EXPECT_EQ(q.exit_code, 1);
  EXPECT_EQ(q.output,
            "beast query: " + (dir_ / "garbage.db").string() + " is not a beast database\n");
}

TEST_F(Pipeline, ALaunchAsRanksWithoutAnMpiJobIsOneLine) {
  // As mpirun -np 2 starts each copy: with its rank count in the environment,
  // but no mpirun behind it. A beast without MPI refuses the launch; one with
  // MPI starts MPI, finds itself alone, and says so.
  const std::string db = (dir_ / "mpi.db").string();
  auto r = RunCommand("OMPI_COMM_WORLD_SIZE=2 " + BeastBinary() +
                          " tune --template gemm/tiled --problem " + std::string(kGemm) + " --db " +
                          db + " 2>&1 >/dev/null",
                      false);
  EXPECT_EQ(r.exit_code, 1);
#if BEAST_TEST_WITH_MPI
  EXPECT_EQ(r.output,
            "beast tune: under mpirun, rank 0 coordinates and the other ranks measure: start at "
            "least 2 ranks\n");
#else
  EXPECT_EQ(r.output,
            "beast tune: started as 2 ranks (OMPI_COMM_WORLD_SIZE), but this beast was built "
            "without MPI (BEAST_WITH_MPI): run one beast tune with --device given once per device "
            "instead, or rebuild with Open MPI\n");
#endif
  EXPECT_FALSE(fs::exists(db));
}

TEST_F(Pipeline, SpaceReportsEachConstraint) {
  // The constraints of the space file, in order: each "  - expr: " line of
  // it, with its line number (derived values indent their expr further).
  const std::string space_file =
      std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates/gemm/tiled.space.yaml";
  std::vector<std::pair<int, std::string>> file_constraints;
  {
    std::ifstream in(space_file);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (line.rfind("  - expr: ", 0) != 0) continue;
      std::string expr = line.substr(10, line.find("  #") - 10);
      if (expr.size() > 1 && expr.front() == '"') expr = expr.substr(1, expr.size() - 2);
      file_constraints.emplace_back(number, expr);
    }
  }
  ASSERT_EQ(file_constraints.size(), 16u);

  auto r = RunCommand(
      BeastBinary() + " space gemm/tiled --problem gemm:M=72,N=40,K=56 --device opencl:0 --json",
      false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json space = nlohmann::json::parse(r.output);
  const uint64_t raw = space["raw"].get<uint64_t>(), valid = space["valid"].get<uint64_t>();
  EXPECT_EQ(raw, 646912u) << "12 parameters' value sets at 72x40x56";
  // Every constraint of the file, in its order and at its line; the cut
  // column removes each config once: remaining falls by cut, from the
  // configs whose derived values compute (all of them here) to valid.
  ASSERT_EQ(space["constraints"].size(), file_constraints.size()) << r.output;
  EXPECT_EQ(space["computable"].get<uint64_t>(), raw);
  uint64_t remaining = space["computable"].get<uint64_t>();
  for (size_t i = 0; i < file_constraints.size(); ++i) {
    const nlohmann::json& c = space["constraints"][i];
    EXPECT_EQ(c["expr"], file_constraints[i].second) << i;
    EXPECT_EQ(c["where"], space_file + ":" + std::to_string(file_constraints[i].first)) << i;
    remaining -= c["cut"].get<uint64_t>();
    EXPECT_EQ(c["remaining"].get<uint64_t>(), remaining) << i;
  }
  EXPECT_EQ(remaining, valid);
  EXPECT_EQ(space["constraints"][8]["kind"], "hard");
  EXPECT_EQ(space["constraints"][9]["kind"], "soft");

  // The text says the same, one row per constraint in the same order.
  auto text = RunCommand(
      BeastBinary() + " space gemm/tiled --problem gemm:M=72,N=40,K=56 --device opencl:0", false);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  std::vector<std::string> lines;
  std::stringstream in(text.output);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u + file_constraints.size() + 2u) << text.output;
  EXPECT_EQ(lines[3], "raw space: 646912 points over 12 parameters");
  for (size_t i = 0; i < file_constraints.size(); ++i) {
    const std::string& row = lines[5 + i];
    const nlohmann::json& c = space["constraints"][i];
    char head[32];
    std::snprintf(head, sizeof head, "%3zu  %s  ", i + 1, c["kind"].get<std::string>().c_str());
    EXPECT_EQ(row.rfind(head, 0), 0u) << row;
    const std::string tail =
        std::to_string(c["remaining"].get<uint64_t>()) + "  " + file_constraints[i].second;
    EXPECT_EQ(row.substr(row.size() - std::min(row.size(), tail.size())), tail) << row;
  }
  EXPECT_EQ(lines.back(), "valid: " + std::to_string(valid) + " configs");

  // A constraint that divides by zero for some points (KWI = 4) removes
  // them, and the report says how many it could not evaluate.
  const std::string divides =
      BeastBinary() +
      " space gemm/tiled --problem gemm:M=72,N=40,K=56 --device opencl:0 --constraint "
      "\"hard: MWG % (KWI - 4) == 0\"";
  auto zero = RunCommand(divides, false);
  ASSERT_EQ(zero.exit_code, 0) << zero.output;
  EXPECT_NE(zero.output.find("\nconstraint 17 could not be evaluated for 120 of the points it "
                             "removed (a division by zero or an integer overflow)\nvalid: "),
            std::string::npos)
      << zero.output;
  auto zero_json = RunCommand(divides + " --json", false);
  ASSERT_EQ(zero_json.exit_code, 0) << zero_json.output;
  EXPECT_EQ(nlohmann::json::parse(zero_json.output)["constraints"][16]["invalid"], 120);
}

}  // namespace
}  // namespace beast
