// beast query on a small golden database built here with the store: the exact
// table, CSV and JSON of --best, --top, --device, --where, --status and
// --compare, the speed-up over the default config and over each vendor
// library's baseline, a version-1 file upgraded on the way, and one clear line
// with a non-zero exit for each kind of bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/sqlite_rows.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;
using testing::SqlCount;
using testing::SqlExec;

const char kGemm64[] = "gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32";
const char kGemm128[] = "gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32";

// Devices "GPU A100" and "CPU EPYC"; gemm/tiled configs
//   a MWG=16,VW=1 (default)  b MWG=32,VW=1  c MWG=32,VW=2  d MWG=64,VW=4
// GPU gemm64: a 8 ms, b 2, c 4, d compile_error; baselines clblast 3, cublas 1.
// GPU gemm128: a 16, c 8.   CPU gemm64: a 8, b 10; baseline clblast 10.
// CPU gemm128: b 16 (no default measured). GFLOP/s = 1000 / ms.
class QueryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("query");
    db_ = (dir_ / "golden.db").string();
    results_db::Store s = results_db::Store::Open(db_);
    int64_t run = s.BeginRun("beast tune", "0.1.0");
    auto device = [&](const std::string& name) {
      results_db::DeviceRecord d;
      d.backend = beast::Backend::kOpenCL;
      d.name = name;
      d.driver_version = "1.0";
      return s.UpsertDevice(d);
    };
    int64_t gpu = device("GPU A100"), cpu = device("CPU EPYC");
    int64_t g64 = s.UpsertProblem(kGemm64, "gemm", 524288.0);
    int64_t g128 = s.UpsertProblem(kGemm128, "gemm", 1048576.0);
    int64_t tiled = s.UpsertTemplate("gemm/tiled", "aaaa", "");
    int64_t a = s.UpsertConfig(tiled, "MWG=16,VW=1", "ha", R"({"MWG": 16, "VW": 1})");
    int64_t b = s.UpsertConfig(tiled, "MWG=32,VW=1", "hb", R"({"MWG": 32, "VW": 1})");
    int64_t c = s.UpsertConfig(tiled, "MWG=32,VW=2", "hc", R"({"MWG": 32, "VW": 2})");
    int64_t d = s.UpsertConfig(tiled, "MWG=64,VW=4", "hd", R"({"MWG": 64, "VW": 4})");
    auto ok = [&](int64_t dev, int64_t problem, int64_t config, double ms, bool is_default) {
      results_db::MeasurementRecord m;
      m.run_id = run;
      m.device_id = dev;
      m.problem_id = problem;
      m.config_id = config;
      m.is_default = is_default;
      m.strategy = is_default ? "default" : "model";
      m.samples_ms = {ms, ms};
      m.median_ms = ms;
      m.spread = 0;
      m.gflops = 1000 / ms;
      m.max_error = 0;
      s.RecordMeasurement(m);
    };
    ok(gpu, g64, a, 8, true);
    ok(gpu, g64, b, 2, false);
    ok(gpu, g64, c, 4, false);
    results_db::MeasurementRecord failed;
    failed.run_id = run;
    failed.device_id = gpu;
    failed.problem_id = g64;
    failed.config_id = d;
    failed.status = beast::Status::kCompileError;
    failed.error_text = "error: out of registers";
    s.RecordMeasurement(failed);
    ok(gpu, g128, a, 16, true);
    ok(gpu, g128, c, 8, false);
    ok(cpu, g64, a, 8, true);
    ok(cpu, g64, b, 10, false);
    ok(cpu, g128, b, 16, false);
    auto baseline = [&](int64_t dev, const std::string& library, double ms) {
      results_db::BaselineRecord r;
      r.run_id = run;
      r.device_id = dev;
      r.problem_id = g64;
      r.library = library;
      r.routine = "Sgemm";
      r.median_ms = ms;
      s.RecordBaseline(r);
    };
    baseline(gpu, "clblast", 3);
    baseline(gpu, "cublas", 1);
    baseline(cpu, "clblast", 10);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // stdout of `beast query --db golden.db ARGS`; expects exit 0.
  std::string Query(const std::string& args) {
    auto r = RunCommand(BeastBinary() + " query --db " + db_ + " " + args, /*merge_stderr=*/false);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return r.output;
  }
  // stdout and stderr of a query that fails with `code`.
  std::string Fails(const std::string& args, int code) {
    auto r = RunCommand(BeastBinary() + " query --db " + db_ + " " + args);
    EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
    return r.output;
  }

  fs::path dir_;
  std::string db_;
};

const char kCsvHeader[] =
    "device,backend,problem,template,config,status,is_default,median_ms,spread,gflops,max_error,"
    "speedup_vs_default,strategy";

TEST_F(QueryCli, BestAsCsvWithSpeedupsOverDefaultAndBaselines) {
  EXPECT_EQ(Query("--best --csv"),
            std::string(kCsvHeader) + ",vs_clblast,vs_cublas\n" +
                "CPU EPYC,opencl,\"gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=1\",ok,0,16,0,62.5,0,,model,,\n"
                "CPU EPYC,opencl,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=16,VW=1\",ok,1,8,0,125,0,1,default,1.25,\n"
                "GPU A100,opencl,\"gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=2\",ok,0,8,0,125,0,2,model,,\n"
                "GPU A100,opencl,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=1\",ok,0,2,0,500,0,4,model,1.5,0.5\n");
}

TEST_F(QueryCli, TableShowsOneColumnPerLibrary) {
  std::string out = Query("--best --device GPU --problem gemm:M=64,N=64,K=64");
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "template             status           median ms   GFLOP/s  speedup   vs clblast    "
            "vs cublas chosen by   config / device / problem");
  EXPECT_NE(out.find("gemm/tiled           ok                2.000000    500.00   4.000x       "
                     "1.500x       0.500x model       MWG=32,VW=1\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("GPU A100\n"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.rfind("1 rows")), "1 rows\n");
}

// --fastest --limit N: the first N problems' fastest templates. The limit
// counts winners: a template that sorts first but is slower is not one.
TEST_F(QueryCli, FastestWithALimitComparesEveryTemplateFirst) {
  SqlExec(db_,
          "INSERT INTO templates (name, hash) VALUES ('gemm/aa', 'bbbb'); "
          "INSERT INTO configs (template_id, config_key, config_hash, params_json) "
          "SELECT id, 'X=1', 'hx', '{\"X\": 1}' FROM templates WHERE name = 'gemm/aa'; "
          "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, median_ms) "
          "SELECT 1, d.id, p.id, c.id, 'ok', 20 FROM devices d, problems p, configs c "
          "WHERE d.name = 'CPU EPYC' AND p.key LIKE 'gemm:M=128,%' AND c.config_key = 'X=1'");
  const std::string cpu128 =
      "CPU EPYC,opencl,\"gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
      "\"MWG=32,VW=1\",ok,0,16,0,62.5,0,,model\n";
  EXPECT_EQ(Query("--fastest --limit 1 --csv"), std::string(kCsvHeader) + "\n" + cpu128);
  const std::string all = Query("--fastest --csv");
  EXPECT_EQ(testing::CountOccurrences(all, "\n"), 5u) << all;
  EXPECT_EQ(all.find("gemm/aa"), std::string::npos) << all;
}

TEST_F(QueryCli, TopKOfOneDeviceAndProblem) {
  EXPECT_EQ(Query("--top 2 --device gpu --problem gemm:M=64,N=64,K=64 --csv"),
            std::string(kCsvHeader) + ",vs_clblast,vs_cublas\n" +
                "GPU A100,opencl,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=1\",ok,0,2,0,500,0,4,model,1.5,0.5\n"
                "GPU A100,opencl,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=2\",ok,0,4,0,250,0,2,model,0.75,0.25\n");
}

TEST_F(QueryCli, WhereParameterValues) {
  EXPECT_EQ(Query("--where MWG=32 --where VW=2 --csv"),
            std::string(kCsvHeader) + ",vs_clblast,vs_cublas\n" +
                "GPU A100,opencl,\"gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=2\",ok,0,8,0,125,0,2,model,,\n"
                "GPU A100,opencl,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=32,VW=2\",ok,0,4,0,250,0,2,model,0.75,0.25\n");
  // A value is bound, never SQL: this matches nothing.
  EXPECT_EQ(Query("--where \"MWG=32 OR 1=1\" --csv"), std::string(kCsvHeader) + "\n");
}

// A JSON boolean (an imported Kernel Tuner config's) is matched by the True
// or False of its config key, and by 1 or 0.
TEST_F(QueryCli, WhereABooleanParameter) {
  SqlExec(db_,
          "INSERT INTO templates (name, hash) VALUES ('gemm/kt', 'cccc'); "
          "INSERT INTO configs (template_id, config_key, config_hash, params_json) "
          "SELECT id, k, k, j FROM templates, (SELECT 'USE_X=True' AS k, "
          "'{\"USE_X\": true}' AS j UNION ALL SELECT 'USE_X=False', '{\"USE_X\": false}') "
          "WHERE name = 'gemm/kt'; "
          "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, median_ms) "
          "SELECT 1, d.id, p.id, c.id, 'ok', length(c.config_key) FROM devices d, problems p, "
          "configs c WHERE d.name = 'CPU EPYC' AND p.key LIKE 'gemm:M=64,%' "
          "AND c.config_key LIKE 'USE_X=%'");
  auto configs = [&](const std::string& where) {
    std::string out;
    for (const auto& row : nlohmann::json::parse(Query("--json --where " + where)))
      out += row["config"].get<std::string>() + " ";
    return out;
  };
  EXPECT_EQ(configs("USE_X=True"), "USE_X=True ");
  EXPECT_EQ(configs("USE_X=true"), "USE_X=True ");
  EXPECT_EQ(configs("USE_X=1"), "USE_X=True ");
  EXPECT_EQ(configs("USE_X=False"), "USE_X=False ");
  EXPECT_EQ(configs("USE_X=0"), "USE_X=False ");
  EXPECT_EQ(configs("USE_X=yes"), "");
}

TEST_F(QueryCli, StatusAsJson) {
  EXPECT_EQ(
      nlohmann::json::parse(Query("--status compile_error --template gemm/tiled --json")),
      nlohmann::json::parse(
          "[{\"device\": \"GPU A100\", \"backend\": \"opencl\", \"problem\": "
          "\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\", \"template\": \"gemm/tiled\", "
          "\"config\": \"MWG=64,VW=4\", \"params\": {\"MWG\": 64, \"VW\": 4}, \"status\": "
          "\"compile_error\", \"is_default\": false, \"strategy\": \"\", \"median_ms\": null, "
          "\"prepare_ms\": null, "
          "\"spread\": null, "
          "\"gflops\": null, \"max_error\": null, \"speedup_vs_default\": null, \"speedup_basis\": "
          "null, "
          "\"confirmed_ms\": null, \"compile_ms\": null, \"registers\": null, \"spill_bytes\": "
          "null, \"stack_bytes\": null, "
          "\"shared_bytes\": null, \"error\": \"error: out of registers\", \"baselines\": "
          "[{\"library\": \"clblast\", \"routine\": "
          "\"Sgemm\", \"median_ms\": 3, \"speedup\": null}, {\"library\": \"cublas\", "
          "\"routine\": \"Sgemm\", \"median_ms\": 1, \"speedup\": null}]}]"));
}

// A text recorded as a driver gave it may hold bytes that are not UTF-8:
// the JSON replaces them (U+FFFD) instead of failing the whole query.
TEST_F(QueryCli, AnErrorTextThatIsNotUtf8IsPrintedWithReplacements) {
  auto r = RunCommand("sqlite3 " + db_ +
                      " \"UPDATE measurements SET error_text = 'bad ' || X'FF' || ' byte' "
                      "WHERE status = 'compile_error'\"");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json rows =
      nlohmann::json::parse(Query("--status compile_error --template gemm/tiled --json"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["error"], "bad \xEF\xBF\xBD byte");
}

TEST_F(QueryCli, CompiledResourcesWherePresent) {
  {
    results_db::Store s = results_db::Store::Open(db_);
    results_db::DeviceRecord d;
    d.backend = beast::Backend::kCuda;
    d.name = "compile-only sm_90";
    d.driver_version = "spec table";
    int64_t sm90 = s.UpsertDevice(d);
    int64_t problem = s.UpsertProblem(kGemm64, "gemm", 524288.0);
    int64_t tiled = s.UpsertTemplate("gemm/tiled", "aaaa", "");
    int64_t run = s.BeginRun("beast tune", "0.1.0");
    auto record = [&](const std::string& key, beast::Status status,
                      std::optional<int64_t> registers) {
      results_db::MeasurementRecord m;
      m.run_id = run;
      m.device_id = sm90;
      m.problem_id = problem;
      m.config_id = s.UpsertConfig(tiled, key, "h" + key, "{}");  // the existing configs
      m.status = status;
      m.compile_ms = 250;
      m.registers = registers;
      m.spill_bytes = 0;
      m.stack_bytes = 8;
      m.shared_bytes = 4096;
      if (status != beast::Status::kCompiled)
        m.error_text = "violates hard constraint \"registers <= 64\"";
      s.RecordMeasurement(m);
    };
    record("MWG=16,VW=1", beast::Status::kCompiled, 40);
    record("MWG=64,VW=4", beast::Status::kPrunedAfterCompile, 96);
  }
  EXPECT_EQ(Query("--device sm_90 --csv"),
            std::string(kCsvHeader) + ",registers,spill_bytes,stack_bytes,shared_bytes\n" +
                "compile-only sm_90,cuda,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\","
                "gemm/tiled,\"MWG=16,VW=1\",compiled,0,,,,,,,40,0,8,4096\n"
                "compile-only sm_90,cuda,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\","
                "gemm/tiled,\"MWG=64,VW=4\",pruned_after_compile,0,,,,,,,96,0,8,4096\n");
  EXPECT_EQ(
      nlohmann::json::parse(Query("--device sm_90 --status compiled --json")),
      nlohmann::json::parse(
          "[{\"device\": \"compile-only sm_90\", \"backend\": \"cuda\", \"problem\": "
          "\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\", \"template\": \"gemm/tiled\", "
          "\"config\": \"MWG=16,VW=1\", \"params\": {\"MWG\": 16, \"VW\": 1}, \"status\": "
          "\"compiled\", "
          "\"is_default\": false, \"strategy\": \"\", \"median_ms\": null, "
          "\"prepare_ms\": null, \"spread\": null, "
          "\"gflops\": null, "
          "\"max_error\": null, \"speedup_vs_default\": null, \"speedup_basis\": null, "
          "\"confirmed_ms\": null, "
          "\"compile_ms\": 250, "
          "\"registers\": 40, \"spill_bytes\": 0, \"stack_bytes\": 8, \"shared_bytes\": 4096, "
          "\"error\": \"\", \"baselines\": []}]"));
  std::string table = Query("--device sm_90 --status pruned_after_compile");
  EXPECT_NE(table.find("\n" + std::string(77, ' ') +
                       "  registers 96, spills 0 B, stack 8 B, shared 4096 B\n1 rows\n"),
            std::string::npos)
      << table;
  // Rows without resources get no such columns.
  EXPECT_EQ(Query("--device GPU --status compile_error --csv"),
            std::string(kCsvHeader) + ",vs_clblast,vs_cublas\n" +
                "GPU A100,opencl,\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",gemm/tiled,"
                "\"MWG=64,VW=4\",compile_error,0,,,,,,,,\n");
}

TEST_F(QueryCli, CompareTwoDevices) {
  EXPECT_EQ(Query("--compare GPU CPU --csv"),
            "problem,device_a,template_a,config_a,median_ms_a,device_b,template_b,config_b,"
            "median_ms_b,ratio\n"
            "\"gemm:M=128,N=64,K=64,transA=0,transB=0,dtype=f32\",GPU A100,gemm/tiled,"
            "\"MWG=32,VW=2\",8,CPU EPYC,gemm/tiled,\"MWG=32,VW=1\",16,0.5\n"
            "\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",GPU A100,gemm/tiled,"
            "\"MWG=32,VW=1\",2,CPU EPYC,gemm/tiled,\"MWG=16,VW=1\",8,0.25\n");
  EXPECT_EQ(
      nlohmann::json::parse(
          Query("--compare CPU GPU --where VW=1 --problem gemm:M=64,N=64,K=64 --json")),
      nlohmann::json::parse(
          "[{\"problem\": \"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\", \"a\": "
          "{\"device\": \"CPU EPYC\", \"template\": \"gemm/tiled\", \"config\": \"MWG=16,VW=1\", "
          "\"median_ms\": 8, \"gflops\": 125}, \"b\": {\"device\": \"GPU A100\", \"template\": "
          "\"gemm/tiled\", \"config\": \"MWG=32,VW=1\", \"median_ms\": 2, \"gflops\": 500}, "
          "\"ratio\": 4}]"));
  std::string table = Query("--compare GPU CPU");
  EXPECT_EQ(table.substr(0, table.find('\n')),
            "A = GPU A100, B = CPU EPYC; ratio = A's best time / B's (above 1: B is faster)");
  EXPECT_EQ(table.substr(table.rfind("2 common")), "2 common problems\n");
}

// GPU A100 under another driver, measured last (5 ms on the 64^3 gemm only):
// the comparison takes that device row's results, not the best of both
// drivers (2 ms, and a 128^3 best only the older driver measured), and says so.
TEST_F(QueryCli, CompareTakesOneDriversResultsOfAName) {
  SqlExec(db_,
          "INSERT INTO devices (backend, name, driver_version) VALUES ('opencl', 'GPU A100', "
          "'2.0'); "
          "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, median_ms) "
          "SELECT 1, d.id, p.id, c.id, 'ok', 5 FROM devices d, problems p, configs c "
          "WHERE d.driver_version = '2.0' AND p.key LIKE 'gemm:M=64,%' "
          "AND c.config_key = 'MWG=32,VW=1'");
  auto r = RunCommand(BeastBinary() + " query --db " + db_ + " --compare GPU CPU --csv", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "problem,device_a,template_a,config_a,median_ms_a,device_b,template_b,config_b,"
            "median_ms_b,ratio\n"
            "\"gemm:M=64,N=64,K=64,transA=0,transB=0,dtype=f32\",GPU A100,gemm/tiled,"
            "\"MWG=32,VW=1\",5,CPU EPYC,gemm/tiled,\"MWG=16,VW=1\",8,0.625\n");
  auto note = RunCommand(
      BeastBinary() + " query --db " + db_ + " --compare GPU CPU --csv 2>&1 >/dev/null", false);
  EXPECT_EQ(note.output,
            "beast query: GPU A100 has results of 2 drivers or backends, not mixed: compared are "
            "those of opencl driver 2.0, its newest\n");

  // A later run measured a failure of driver 1.0 again: its row keeps its
  // (lower) id, and the newest run decides.
  SqlExec(db_,
          "INSERT INTO runs (command) VALUES ('beast tune --retry-failed'); "
          "UPDATE measurements SET run_id = 2, status = 'ok', median_ms = 1, error_text = '' "
          "WHERE status = 'compile_error'");
  auto retried = RunCommand(
      BeastBinary() + " query --db " + db_ + " --compare GPU CPU --csv 2>&1 >/dev/null", false);
  EXPECT_EQ(retried.output,
            "beast query: GPU A100 has results of 2 drivers or backends, not mixed: compared are "
            "those of opencl driver 1.0, its newest\n");
}

TEST_F(QueryCli, EveryProblemKeyItPrintsIsAcceptedBack) {
  // An imported Kernel Tuner problem keeps its own key.
  const int64_t gpu = SqlCount(db_, "SELECT id FROM devices WHERE name = 'GPU A100'");
  ASSERT_GT(gpu, 0);
  SqlExec(db_,
          "INSERT INTO problems (key, op, flops) VALUES ('kt:convolution_kernel:4096x4096', "
          "'conv2d', 1e9); "
          "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, median_ms) "
          "SELECT 1, " +
              std::to_string(gpu) +
              ", p.id, c.id, 'ok', 3 FROM problems p, configs c "
              "WHERE p.key LIKE 'kt:%' AND c.config_key = 'MWG=32,VW=2'");
  std::set<std::string> printed;
  for (const auto& row : nlohmann::json::parse(Query("--json")))
    printed.insert(row["problem"].get<std::string>());
  ASSERT_EQ(printed.size(), 3u);
  for (const std::string& key : printed) {
    const nlohmann::json rows = nlohmann::json::parse(Query("--problem '" + key + "' --json"));
    ASSERT_FALSE(rows.empty()) << key;
    for (const auto& row : rows) EXPECT_EQ(row["problem"], key);
  }
}

TEST_F(QueryCli, BadInputIsOneClearLine) {
  EXPECT_EQ(Fails("--where NOPE=1", 1),
            "beast query: unknown parameter 'NOPE' (the configs in " + db_ + " have MWG, VW)\n");
  EXPECT_EQ(Fails("--template gemm/other --where MWG=1", 1),
            "beast query: no template 'gemm/other' in " + db_ + " (templates: gemm/tiled)\n");
  EXPECT_EQ(Fails("--problem kt:nope", 1),
            "beast query: no problem 'kt:nope' in " + db_ +
                ", and it is not a problem key beast reads (problem \"kt:nope\": unknown op \"kt\" "
                "(known: conv2d gemm))\n");
  EXPECT_EQ(Fails("--where MWG", 2), "beast query: --where takes PARAM=VALUE, not 'MWG'\n");
  EXPECT_EQ(Fails("--device TPU", 1),
            "beast query: no device 'TPU' in " + db_ + " (devices: CPU EPYC, GPU A100)\n");
  EXPECT_EQ(Fails("--device U", 2), "beast query: device 'U' matches several in " + db_ +
                                        ": CPU EPYC, GPU A100; give the whole name\n");
  EXPECT_EQ(Fails("--status exploded", 2),
            "beast query: unknown status 'exploded' (one of ok, compile_error, runtime_error, "
            "crashed, timeout, wrong_result, pruned_after_compile, compiled)\n");
  EXPECT_EQ(Fails("--top 0", 2), "beast query: --top takes a positive number\n");
  EXPECT_EQ(Fails("--best --top 2", 2), "beast query: --best is --top 1; give one of them\n");
  EXPECT_EQ(Fails("--compare GPU", 2),
            "beast query: --compare takes two devices: --compare DEVICE_A DEVICE_B\n");
  EXPECT_EQ(Fails("--compare GPU CPU --best", 2),
            "beast query: --compare compares best ok configs; drop --best\n");
  EXPECT_EQ(Fails("extra", 2), "beast query: unexpected argument 'extra'\n");
  EXPECT_EQ(Fails("--bogus", 2), "beast query: unknown option --bogus (see beast query --help)\n");
  EXPECT_EQ(Fails("--limit 1 --limit 2", 2),
            "beast query: --limit is given more than once (it takes one value)\n");
  EXPECT_EQ(Fails("--limit", 2), "beast query: --limit needs a value\n");
}

TEST_F(QueryCli, DatabasesOfOtherVersions) {
  // A version-1 file is upgraded in place and queried.
  const std::string v1 = (dir_ / "v1.db").string();
  std::ifstream schema(std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/schema_v1.sql");
  std::string sql((std::istreambuf_iterator<char>(schema)), std::istreambuf_iterator<char>());
  SqlExec(v1, sql +
                  "INSERT INTO runs (id) VALUES (1);"
                  "INSERT INTO devices (id, backend, name) VALUES (1, 'opencl', 'GPU');"
                  "INSERT INTO problems (id, key, op, flops) VALUES (1, 'gemm:M=8', 'gemm', 1);"
                  "INSERT INTO templates (id, name, hash) VALUES (1, 'gemm/tiled', 'x');"
                  "INSERT INTO configs VALUES (1, 1, 'MWG=16', 'h', '{\"MWG\": 16}');"
                  "INSERT INTO measurements (run_id, device_id, problem_id, config_id, status, "
                  "median_ms) VALUES (1, 1, 1, 1, 'ok', 2.5);");
  ASSERT_EQ(SqlCount(v1, "PRAGMA user_version"), 1);
  auto upgraded = RunCommand(BeastBinary() + " query --db " + v1 + " --where MWG=16 --csv", false);
  EXPECT_EQ(upgraded.exit_code, 0);
  EXPECT_EQ(upgraded.output,
            std::string(kCsvHeader) + "\nGPU,opencl,gemm:M=8,gemm/tiled,MWG=16,ok,0,2.5,,,,,\n");
  EXPECT_EQ(SqlCount(v1, "PRAGMA user_version"), 9);

  // A newer one is refused, untouched.
  SqlExec(db_, "PRAGMA user_version = 10");
  EXPECT_EQ(Fails("--best", 1), "beast query: " + db_ +
                                    ": database schema version 10 is newer than this beast (9): "
                                    "upgrade beast\n");
  EXPECT_EQ(SqlCount(db_, "PRAGMA user_version"), 10);
  const std::string text = (dir_ / "notes.txt").string();
  std::ofstream(text) << "not a database\n";
  auto r = RunCommand(BeastBinary() + " query --db " + text);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "beast query: " + text + " is not a beast database\n");
}

}  // namespace
}  // namespace beast
