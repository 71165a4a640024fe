// beast replay through the CLI: exact fractions on a small committed Kernel
// Tuner cache (computed here from the file), a T1 part of it, parameters in
// another order, the simulated wall clock, a cache a killed run left open, its
// JSON form, learning from another cache first (--transfer), a space beast
// measured itself, and bad input.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "support/command_runner.hpp"
#include "support/record_measurement.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::CountOccurrences;
using testing::JsonOf;
using testing::RunCommand;

const std::string kCache =
    std::string(BEAST_TEST_SOURCE_DIR) + "/tests/data/kernel_tuner/test_test_cache_file.json";

class ReplayCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::FreshTestDir("replay_cli"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) { return (dir_ / name).string(); }

  fs::path dir_;
};

// The cache's times in the order beast reads them: its keys sorted, as nlohmann::json
// iterates (every config ran ok).
std::vector<double> CacheTimes() {
  std::ifstream in(kCache);
  const nlohmann::json cache = nlohmann::json::parse(in)["cache"];
  std::vector<double> times;
  for (const auto& [key, entry] : cache.items()) times.push_back(entry["time"].get<double>());
  return times;
}

TEST_F(ReplayCli, GivesExactFractionsOnASmallCache) {
  const std::vector<double> times = CacheTimes();  // 15 configs of vector_add
  ASSERT_EQ(times.size(), 15u);
  const double optimum = *std::min_element(times.begin(), times.end());
  // Exhaustive walks the configs in that order: after 5 the best is
  // the least of the first 5, whatever the seed.
  testing::CommandResult r =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache +
                     " --strategy exhaustive --budget 5 --repeats 2 --seed 4 --json",
                 false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = JsonOf(r.output);
  EXPECT_EQ(out["source"], kCache);
  EXPECT_EQ(out["strategy"], "exhaustive");
  EXPECT_EQ(out["budget"], 5);
  EXPECT_EQ(out["configs"], 15);
  EXPECT_DOUBLE_EQ(out["optimum_ms"].get<double>(), optimum);
  const double best5 = *std::min_element(times.begin(), times.begin() + 5);
  ASSERT_EQ(out["runs"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out["runs"][i]["seed"], 4 + i);
    EXPECT_DOUBLE_EQ(out["runs"][i]["best_ms"].get<double>(), best5);
    EXPECT_DOUBLE_EQ(out["runs"][i]["fraction"].get<double>(), optimum / best5);
    EXPECT_EQ(out["runs"][i]["evaluations"], 5);
  }
  EXPECT_DOUBLE_EQ(out["mean_fraction"].get<double>(), optimum / best5);
  EXPECT_DOUBLE_EQ(out["median_fraction"].get<double>(), optimum / best5);
  // With the whole space as the budget every strategy finds the optimum.
  testing::CommandResult all = RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache +
                                              " --compare random,model --budget 15 --repeats 3 "
                                              "--json",
                                          false);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  for (const nlohmann::json& result : JsonOf(all.output)) {
    EXPECT_EQ(result["mean_fraction"], 1.0) << result["strategy"];
    for (const nlohmann::json& run : result["runs"]) EXPECT_EQ(run["evaluations"], 15);
  }
}

// A T1 file's space may be a part of the cache's: the fractions are of that
// part's optimum (block_size_x 128, 0.0407 ms; the cache's is 768, 0.0318
// ms), so measuring all of it is 1, not 0.78. A point the cache does not
// record is named before any run.
TEST_F(ReplayCli, OfAPartOfTheCacheIsJudgedByThatPartsOptimum) {
  auto t1 = [&](const std::string& name, const std::string& values) {
    std::ofstream(Path(name))
        << R"({"General": {"BenchmarkName": "vector_add"}, "ConfigurationSpace": )"
        << R"({"TuningParameters": [{"Name": "block_size_x", "Type": "int", "Values": ")" << values
        << R"("}]}})";
    return Path(name);
  };
  testing::CommandResult r = RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache +
                                            " --t1 " + t1("part.t1.json", "[128, 192, 256]") +
                                            " --strategy exhaustive --budget 3 --repeats 1 --json",
                                        false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = JsonOf(r.output);
  EXPECT_EQ(out["configs"], 3);
  EXPECT_DOUBLE_EQ(out["optimum_ms"].get<double>(), 0.04073600071881499);
  EXPECT_EQ(out["mean_fraction"], 1.0);
  testing::CommandResult missing =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache + " --t1 " +
                     t1("wider.t1.json", "[100, 128, 192, 200]") + " --budget 2 2>&1",
                 false);
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_EQ(missing.output, "beast replay: " + kCache +
                                " does not record 2 of the 4 configs of the space replayed (the "
                                "first: block_size_x=100)\n");
}

// A T1 file or a transfer cache may list the parameters in another order:
// the same space, by names.
TEST_F(ReplayCli, MatchesParametersByNameInAnyOrder) {
  auto cache = [&](const std::string& name, const std::string& keys, double scale) {
    std::ofstream out(Path(name));
    out << R"({"tune_params_keys": )" << keys << R"(, "tune_params": {"x": [1, 2], "y": [3, 4]},)"
        << R"( "cache": {)";
    const char* sep = "";
    for (int x : {1, 2}) {
      for (int y : {3, 4}) {
        out << sep << "\"" << x << "," << y << "\": {\"x\": " << x << ", \"y\": " << y
            << ", \"time\": " << scale * (x * 10 + y) << "}";
        sep = ", ";
      }
    }
    out << "}}";
    return Path(name);
  };
  const std::string xy = cache("xy.json", R"(["x", "y"])", 1.0);
  const std::string yx = cache("yx.json", R"(["y", "x"])", 2.0);
  std::ofstream(Path("yx.t1.json"))
      << R"({"General": {"BenchmarkName": "k"}, "ConfigurationSpace": {"TuningParameters": [)"
      << R"({"Name": "y", "Type": "int", "Values": "[3, 4]"},)"
      << R"({"Name": "x", "Type": "int", "Values": "[1, 2]"}]}})";
  testing::CommandResult t1 =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + xy + " --t1 " + Path("yx.t1.json") +
                     " --strategy exhaustive --budget 4 --repeats 1 --json",
                 false);
  ASSERT_EQ(t1.exit_code, 0) << t1.output;
  EXPECT_EQ(JsonOf(t1.output)["configs"], 4);
  EXPECT_DOUBLE_EQ(JsonOf(t1.output)["optimum_ms"].get<double>(), 13.0);
  EXPECT_EQ(JsonOf(t1.output)["mean_fraction"], 1.0);
  testing::CommandResult taught =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + xy + " --transfer " + yx +
                     " --strategy model --budget 1 --repeats 3 --json",
                 false);
  ASSERT_EQ(taught.exit_code, 0) << taught.output;
  EXPECT_EQ(JsonOf(taught.output)["transfer"], nlohmann::json::array({yx}));
}

TEST_F(ReplayCli, SimulatesTheWallClockOfOneCompileWorker) {
  std::ifstream in(kCache);
  const nlohmann::json cache = nlohmann::json::parse(in)["cache"];
  // Exhaustive proposes all 15 at once: one worker builds them in order, the
  // device measures each when it is built.
  std::vector<double> done, times;
  double built = 0, device = 0;
  for (const auto& [key, entry] : cache.items()) {
    built += entry["compile_time"].get<double>() / 1000;
    device =
        std::max(device, built) +
        (entry["benchmark_time"].get<double>() + entry["verification_time"].get<double>()) / 1000;
    done.push_back(device);
    times.push_back(entry["time"].get<double>());
  }
  ASSERT_EQ(done.size(), 15u);
  const double optimum = *std::min_element(times.begin(), times.end());
  // The 7th config (in key order, "448") is faster than the 6 before it: the
  // fraction by a time counts the config measured last before it.
  const double best7 = *std::min_element(times.begin(), times.begin() + 7);
  ASSERT_LT(best7, *std::min_element(times.begin(), times.begin() + 6));
  const double between = (done[6] + done[7]) / 2;  // 7 measured, the 8th not yet
  testing::CommandResult r =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache +
                     " --strategy exhaustive --budget 15 --repeats 2 --workers 1 --at " +
                     std::to_string(between) + ",100000 --json",
                 false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = JsonOf(r.output);
  EXPECT_EQ(out["workers"], 1);
  EXPECT_EQ(out["lead"], 2);
  ASSERT_EQ(out["at"].size(), 2u);
  EXPECT_EQ(out["at"][0]["mean_configs"], 7.0);
  EXPECT_DOUBLE_EQ(out["at"][0]["mean_fraction"].get<double>(), optimum / best7);
  EXPECT_EQ(out["at"][1]["mean_configs"], 15.0);
  EXPECT_EQ(out["at"][1]["mean_fraction"], 1.0);
}

TEST_F(ReplayCli, ReadsACacheAKilledRunLeftOpen) {
  std::ifstream in(kCache);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Kernel Tuner writes each entry as it goes and the closing braces last.
  text = text.substr(0, text.rfind('}', text.rfind('}') - 1));
  text = text.substr(0, text.rfind('}') + 1);
  std::ofstream(Path("open.json")) << text;
  const std::string args = " --strategy random --budget 6 --repeats 3 --json";
  testing::CommandResult whole =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache + args, false);
  testing::CommandResult open =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + Path("open.json") + args, false);
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  ASSERT_EQ(open.exit_code, 0) << open.output;
  EXPECT_EQ(JsonOf(open.output)["runs"], JsonOf(whole.output)["runs"]);
  // Cut after the first closing brace: the last one is missing.
  std::ofstream(Path("half_closed.json")) << text << "\n}";
  testing::CommandResult half = RunCommand(
      BeastBinary() + " replay --kernel-tuner " + Path("half_closed.json") + args, false);
  ASSERT_EQ(half.exit_code, 0) << half.output;
  EXPECT_EQ(JsonOf(half.output)["runs"], JsonOf(whole.output)["runs"]);
}

// This small cache (15 configs of one parameter) given as its own transfer
// set: the model has seen every config before the first proposal, and here
// its first config is the optimum on every seed; without it, the first is
// the initial design's, the optimum on few.
TEST_F(ReplayCli, LearnsFromATransferCacheFirst) {
  const std::string args = " --strategy model --budget 1 --repeats 5 --json";
  testing::CommandResult alone =
      RunCommand(BeastBinary() + " replay --kernel-tuner " + kCache + args, false);
  testing::CommandResult taught = RunCommand(
      BeastBinary() + " replay --kernel-tuner " + kCache + " --transfer " + kCache + args, false);
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  ASSERT_EQ(taught.exit_code, 0) << taught.output;
  EXPECT_FALSE(JsonOf(alone.output).contains("transfer"));
  EXPECT_LT(JsonOf(alone.output)["mean_fraction"].get<double>(), 1.0);
  const nlohmann::json out = JsonOf(taught.output);
  EXPECT_EQ(out["transfer"], nlohmann::json::array({kCache}));
  ASSERT_EQ(out["runs"].size(), 5u);
  for (const nlohmann::json& run : out["runs"]) EXPECT_EQ(run["fraction"], 1.0) << run["seed"];
}

// A space beast measured itself: what the newest measurement's device row
// (one driver and backend) measured of its template version. Here one
// device name spans two drivers, the newer measuring configs 0 and 1, the
// older 0, 1 and 2, and an older version of the template measured a config
// faster than any of the newest.
TEST_F(ReplayCli, OfADatabaseTakesTheNewestDriversAndVersionsSpace) {
  std::vector<DeviceInfo> devices = harness::ListOpenClDevices();
  ASSERT_FALSE(devices.empty());
  const std::string templates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
  const SpaceSpec spec = SpaceSpec::Load(templates, "gemm/tiled");
  const Problem problem = Problem::Parse("gemm:M=64,N=64,K=64");
  const std::vector<Config> configs = BoundSpace(spec, problem, devices[0]).Sample(3, 1);
  ASSERT_EQ(configs.size(), 3u);
  DeviceInfo updated = devices[0];
  updated.driver_version += " (updated)";
  const std::string db = Path("measured.db");
  testing::RecordMeasurement(db, devices[0], problem, spec, configs[2], 0.5, "an-older-version");
  testing::RecordMeasurement(db, devices[0], problem, spec, configs[0], 4.0);
  testing::RecordMeasurement(db, devices[0], problem, spec, configs[1], 3.0);
  testing::RecordMeasurement(db, devices[0], problem, spec, configs[2], 1.0);
  testing::RecordMeasurement(db, updated, problem, spec, configs[1], 2.5);
  testing::RecordMeasurement(db, updated, problem, spec, configs[0], 2.0);
  testing::CommandResult r = RunCommand(BeastBinary() + " replay --db " + db + " --device \"" +
                                            devices[0].name + "\" --problem " + problem.Key() +
                                            " --template gemm/tiled --strategy exhaustive "
                                            "--budget 2 --json",
                                        false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json out = JsonOf(r.output);
  EXPECT_EQ(out["configs"], 2);
  EXPECT_DOUBLE_EQ(out["optimum_ms"].get<double>(), 2.0);
  EXPECT_NE(out["source"].get<std::string>().find(
                "[4 measurements of other drivers, backends or template versions left out]"),
            std::string::npos)
      << out["source"];
  // Two configs are not the template's space: the source says so.
  const uint64_t whole = BoundSpace(spec, problem, updated).Count();
  EXPECT_NE(out["source"].get<std::string>().find(
                " [2 of the " + std::to_string(whole) +
                " configs of its space measured: a replay of a part overstates every strategy]"),
            std::string::npos)
      << out["source"];
  EXPECT_DOUBLE_EQ(out["mean_fraction"].get<double>(), 1.0);
}

TEST_F(ReplayCli, BadInputIsOneLine) {
  // A cache where nothing ran (1e20: an old Kernel Tuner's failure).
  std::ofstream(Path("failed.json"))
      << R"({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2, 3]}, "cache": {)"
      << R"("1": {"x": 1, "time": "CompilationFailedConfig"},)"
      << R"("2": {"x": 2, "time": "RuntimeFailedConfig"}, "3": {"x": 3, "time": 1e20}}})";
  // A cache with times but no compile and benchmark times.
  std::ofstream(Path("costless.json"))
      << R"({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "cache": {)"
      << R"("1": {"x": 1, "time": 1.5}, "2": {"x": 2, "time": 2.5}}})";
  // A cache of the same parameter, none of whose values the space has.
  std::ofstream(Path("elsewhere.json"))
      << R"({"tune_params_keys": ["block_size_x"], "tune_params": {"block_size_x": [100]}, )"
      << R"("cache": {"100": {"block_size_x": 100, "time": 1.0}}})";
  // Two entries of one config (no parameters named).
  std::ofstream(Path("twice.json")) << R"({"tune_params_keys": [], "tune_params": {}, "cache": {)"
                                    << R"("a": {"time": 1.0}, "b": {"time": 2.0}}})";
  // The test cache gzipped and cut short.
  {
    std::ifstream in(kCache);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile gz = gzopen(Path("cut.json.gz").c_str(), "wb");
    gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
    gzclose(gz);
    fs::resize_file(Path("cut.json.gz"), fs::file_size(Path("cut.json.gz")) - 12);
  }
  // A time that is neither milliseconds nor a failure Kernel Tuner names.
  std::ofstream(Path("listed.json"))
      << R"({"tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}, "cache": {)"
      << R"("1": {"x": 1, "time": 1.5}, "2": {"x": 2, "time": [1.0, 2.0]}}})";
  // A parameter named twice.
  std::ofstream(Path("named_twice.json"))
      << R"({"tune_params_keys": ["x", "x"], "tune_params": {"x": [1]}, "cache": {)"
      << R"("1,1": {"x": 1, "time": 1.5}}})";
  // A T1 space of other parameters than the cache's.
  std::ofstream(Path("other.t1.json"))
      << R"({"General": {"BenchmarkName": "other"}, "ConfigurationSpace": {"TuningParameters": )"
      << R"([{"Name": "y", "Type": "int", "Values": "[1, 2]"}]}})";
  struct Case {
    std::string args;
    int exit_code;
    std::string message;
  };
  const std::string replay = BeastBinary() + " replay ";
  for (const Case& c : std::vector<Case>{
           {"--kernel-tuner " + kCache + " --strategy anneal", 2,
            "beast replay: unknown strategy \"anneal\" (known: model, random, exhaustive)\n"},
           {"--kernel-tuner " + kCache + " --budget 0", 2,
            "beast replay: --budget must be at least 1\n"},
           {"--kernel-tuner " + kCache + " --budget -5", 2,
            "beast replay: --budget must be at least 1\n"},
           {"--kernel-tuner " + kCache + " --budget 5 --budgets 2,3", 2,
            "beast replay: give --budget N or --budgets N,... (one of them)\n"},
           {"--kernel-tuner " + kCache + " --budget 16", 2,
            "beast replay: a budget of 16 is above the space's 15 configs\n"},
           {"--kernel-tuner " + Path("failed.json"), 1,
            "beast replay: " + Path("failed.json") +
                ": no config ran successfully: nothing to replay\n"},
           {"--kernel-tuner " + kCache + " --t1 " + Path("other.t1.json"), 1,
            "beast replay: " + Path("other.t1.json") + " does not match " + kCache +
                ": its parameters differ\n"},
           {"--budget 5", 2, "beast replay: give --kernel-tuner FILE or --db FILE (one of them)\n"},
           {"--kernel-tuner " + kCache + " --workers 0 --at 60", 2,
            "beast replay: --workers must be between 1 and 4096\n"},
           {"--kernel-tuner " + kCache + " --workers 4 --at ,", 2,
            "beast replay: --at takes at least one time in seconds\n"},
           {"--kernel-tuner " + Path("costless.json") + " --budget 2 --workers 4 --at 60", 1,
            "beast replay: " + Path("costless.json") +
                " records no compile and benchmark times: a simulated pipeline (--workers) "
                "needs a Kernel Tuner cache\n"},
           {"--kernel-tuner " + kCache + " --budget 5 --transfer " + Path("costless.json"), 1,
            "beast replay: --transfer " + Path("costless.json") + " does not match " + kCache +
                ": its parameters differ\n"},
           {"--kernel-tuner " + kCache + " --budget 5 --transfer " + Path("elsewhere.json"), 1,
            "beast replay: --transfer " + Path("elsewhere.json") +
                " holds no config of the space replayed\n"},
           {"--kernel-tuner " + kCache + " --at 60", 2,
            "beast replay: --at and --workers go together\n"},
           {"--kernel-tuner " + kCache + " --compare ,", 2,
            "beast replay: --compare takes at least one strategy\n"},
           {"--kernel-tuner " + kCache + " --budgets ,", 2,
            "beast replay: --budgets takes at least one budget\n"},
           {"--kernel-tuner " + kCache + " --seed -1", 2,
            "beast replay: --seed must not be negative\n"},
           {"--kernel-tuner " + Path("named_twice.json"), 1,
            "beast replay: " + Path("named_twice.json") +
                ": not a Kernel Tuner cache: \"tune_params_keys\" names x twice\n"},
           {"--kernel-tuner " + Path("listed.json"), 1,
            "beast replay: " + Path("listed.json") +
                ": not a Kernel Tuner cache: entry \"2\" has time [1.0,2.0]: neither a positive "
                "number of milliseconds nor a Kernel Tuner failure (RuntimeFailedConfig, "
                "CompilationFailedConfig, InvalidConfig, 1e20)\n"},
           {"--kernel-tuner " + dir_.string(), 1,
            "beast replay: " + dir_.string() + ": is a directory, not a Kernel Tuner cache\n"},
           {"--kernel-tuner " + kCache + " --workers 4 --at 60,soon", 2,
            "beast replay: --at takes positive seconds, not \"soon\"\n"},
           {"--kernel-tuner " + Path("twice.json"), 1,
            "beast replay: " + Path("twice.json") +
                ": not a Kernel Tuner cache: entries \"a\" and \"b\" hold the same config\n"},
           {"--kernel-tuner " + Path("cut.json.gz"), 1,
            "beast replay: " + Path("cut.json.gz") + ": the gzip stream is cut short\n"},
       }) {
    testing::CommandResult r = RunCommand(replay + c.args + " 2>&1 >/dev/null", false);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output, c.message) << c.args;
    EXPECT_EQ(CountOccurrences(r.output, "\n"), 1u) << r.output;
  }
}

}  // namespace
}  // namespace beast
