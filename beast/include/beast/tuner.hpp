// Tuner: drives one tuning run — for every (template, problem) pair it binds
// the space, picks the configs to measure (the default first), skips what the
// database already holds, and renders, compiles, validates and times the rest
// on one device, recording every outcome. Failing configs are data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "beast/bound_space.hpp"
#include "beast/device.hpp"
#include "beast/problem.hpp"

namespace beast {

struct TuneOptions {
  std::vector<std::string> templates;   // "gemm/tiled"; a template tunes the problems of its op
  std::vector<Problem> problems;
  DeviceSelector device;
  std::string db_path = "beast.db";
  std::string templates_dir;            // default: Paths::Default()
  BindOptions bind;
  uint64_t max_configs = 0;             // per pair; 0: the whole space
  uint64_t seed = 1;                    // of the uniform sample when max_configs cuts
  std::string command_line;             // recorded with the run
  bool progress = true;                 // progress lines on stderr
  // Timing: warm-up runs, then repetitions until the median is stable.
  int warmup = 2;
  int min_reps = 5;
  int max_reps = 30;
  double max_seconds_per_config = 2.0;
};

struct PairSummary {
  std::string template_name;
  std::string problem_key;
  uint64_t space_size = 0;     // valid configs
  uint64_t selected = 0;       // configs this run wanted measured (default included)
  uint64_t measured = 0;       // measured now
  uint64_t skipped = 0;        // already in the database
  uint64_t failed = 0;         // measured now with a status other than ok
  // Best ok config in the database for this pair (this run or earlier).
  bool has_best = false;
  std::string best_config;
  double best_ms = 0;
  double best_gflops = 0;
  double speedup_vs_default = 0;  // 0 when the default did not run ok
};

struct TuneSummary {
  std::string device_id;
  std::string device_name;
  std::vector<PairSummary> pairs;
  double wall_seconds = 0;
  double compile_seconds = 0;
  double benchmark_seconds = 0;
  bool interrupted = false;
};

// Validates everything first (templates, problems, device, non-empty spaces,
// valid defaults) so bad input writes nothing; then tunes. Throws beast::Error
// for bad input or environment. Ctrl-C (SIGINT) stops after the current
// config with the run marked interrupted.
TuneSummary Tune(const TuneOptions& options);

// The winners table `beast tune` prints.
std::string FormatTuneSummary(const TuneSummary& summary);

}  // namespace beast
