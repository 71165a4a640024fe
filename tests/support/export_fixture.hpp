// The fixture of the export tests: a fresh folder with a results database of
// winners on the first OpenCL device (PoCL here), and the export options that
// point at this source tree. Shared by export_test.cpp and
// export_nearest_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "beast/core/paths.hpp"
#include "beast/export/exporter.hpp"
#include "beast/space/bound_space.hpp"
#include "harness/opencl/opencl_devices.hpp"
#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/record_measurement.hpp"
#include "support/test_dir.hpp"

namespace beast::testing {

namespace fs = std::filesystem;

// The problems RecordWinners tunes (export_consumer/main.c runs them too).
inline const std::vector<std::string> kTunedProblems = {
    "gemm:M=64,N=48,K=40,dtype=f32",
    "gemm:M=33,N=17,K=29,transA=1,transB=1,dtype=f32",
    "gemm:M=33,N=17,K=29,transA=1,layout=col,dtype=f32",
    "conv2d:N=1,C=3,H=11,W=13,K=5,R=3,S=3,stride=2,pad=1,layout=NCHW,dtype=f32",
    "conv2d:N=2,C=4,H=9,W=7,K=6,R=3,S=2,stride_h=1,stride_w=2,pad_h=2,pad_w=0,dilation=2,"
    "groups=2,bias=1,layout=NCHW,dtype=f32",
};

// The one problem of its transpositions, tuned with vectors of 8 columns
// (RecordVectorWinner): a requested N that 8 does not divide fits no winner.
inline const char kVectorProblem[] = "gemm:M=64,N=64,K=64,transB=1,dtype=f32";

class ExportFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<DeviceInfo> devices = harness::ListOpenClDevices();
    if (devices.empty()) GTEST_SKIP() << "no OpenCL device";
    device_ = devices[0];
    // Soft constraints read the compute units, which PoCL reports as the
    // machine's cores: with them fixed, the winners recorded below (picked
    // from the spaces) and the nearest tier's choices (which prefer winners
    // whose soft constraints hold) are the same on every machine.
    device_.limits.compute_units = 2;
    dir_ = FreshTestDir("export_test");
    db_ = (dir_ / "beast.db").string();
    options_ = ExportOptions::Defaults();
    options_.templates_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";
    options_.render_script = std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render/render.py";
    options_.skeleton_dir = std::string(BEAST_TEST_SOURCE_DIR) + "/beast/export_skeleton";
    options_.db_path = db_;
    options_.out_dir = (dir_ / "tuned").string();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  static std::string TemplateOf(const Problem& problem) {
    if (problem.op() == OpKind::kGemm) return "gemm/tiled";
    return problem.conv().layout == Layout::kNHWC ? "conv2d/direct_nhwc" : "conv2d/direct_nchw";
  }

  // Records config of problem: ok at `ms`, or a compile error when ms <= 0.
  // hash: the template hash to record (default: the template's own);
  // device_name: the device it was measured on (default: device_'s).
  void Record(const std::string& key, const Config& config, double ms, const std::string& hash = "",
              const std::string& device_name = "") {
    Problem problem = Problem::Parse(key);
    DeviceInfo device = device_;
    if (!device_name.empty()) device.name = device_name;
    RecordMeasurement(db_, device, problem,
                      SpaceSpec::Load(options_.templates_dir, TemplateOf(problem)), config, ms,
                      hash);
  }

  // The valid configs of problem's template for it on the device, in the
  // order of its parameters' values (not the walk order, which a constraint
  // that removes nothing here may change: the winners below would move).
  std::vector<Config> Configs(const std::string& key) const {
    Problem problem = Problem::Parse(key);
    SpaceSpec spec = SpaceSpec::Load(options_.templates_dir, TemplateOf(problem));
    BindOptions declared;
    declared.reorder = false;
    return BoundSpace(spec, problem, device_, declared).Enumerate();
  }

  // Records, for each of kTunedProblems, its template's first valid config at
  // 2 ms, a middle one at 1 ms (the winner) and the last as a compile error;
  // returns the winners' config keys by problem key. Template `stale` is
  // recorded with a hash it does not have.
  std::map<std::string, std::string> RecordWinners(const std::string& stale = "") {
    std::map<std::string, std::string> winners;
    for (const std::string& key : kTunedProblems) {
      std::vector<Config> configs = Configs(key);
      if (configs.size() < 3u) {  // front(), back() and the middle below
        ADD_FAILURE() << key << ": " << configs.size() << " valid configs, at least 3 expected";
        continue;
      }
      const std::string hash = TemplateOf(Problem::Parse(key)) == stale ? "0123456789abcdef" : "";
      Record(key, configs.front(), 2.0, hash);
      Record(key, configs[configs.size() / 2], 1.0, hash);
      Record(key, configs.back(), 0, hash);
      winners[Problem::Parse(key).Key()] = configs[configs.size() / 2].Key();
    }
    return winners;
  }

  // Records kVectorProblem's first valid config with VWN=8 as its only
  // winner (1 ms); returns its key.
  std::string RecordVectorWinner() {
    for (const Config& config : Configs(kVectorProblem)) {
      if (("," + config.Key() + ",").find(",VWN=8,") == std::string::npos) continue;
      Record(kVectorProblem, config, 1.0);
      return config.Key();
    }
    ADD_FAILURE() << "gemm/tiled has no config with VWN=8 for " << kVectorProblem;
    return "";
  }

  // Builds the consumer project tests/integration/export/NAME/ against the
  // export (as a subproject) and runs its binary NAME with the program cache
  // off; ADD_FAILUREs when the build fails (the result's exit code is then -1).
  CommandResult BuildAndRunConsumer(const std::string& name) {
    const std::string consumer = (dir_ / name).string();
    const std::string built = Shell(
        "cmake -S " BEAST_TEST_SOURCE_DIR "/tests/integration/export/" + name + " -B " + consumer +
        " -DCMAKE_BUILD_TYPE=Release -DBEAST_TUNED_SOURCE_DIR=" + options_.out_dir +
        " && cmake --build " + consumer + " -j2");
    if (!built.empty()) {
      ADD_FAILURE() << built;
      return CommandResult{};
    }
    return RunCommand("BEAST_TUNED_CACHE_DIR= " + consumer + "/" + name, false);
  }

  // Runs a shell command, returning its output when it fails.
  static std::string Shell(const std::string& command) {
    CommandResult r = RunCommand(command);
    return r.exit_code == 0
               ? ""
               : command + " failed (" + std::to_string(r.exit_code) + "):\n" + r.output;
  }

  DeviceInfo device_;
  fs::path dir_;
  std::string db_;
  ExportOptions options_;
};

}  // namespace beast::testing
