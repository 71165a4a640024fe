// beast tune's command line: its options declared on a CLI::App, and what
// they say read into TuneOptions, every value checked (bad input is one
// line). Shared by a plain run and a rank of an MPI job (cmd_tune.cpp).
#pragma once

#include <string>
#include <vector>

#include "beast/cli/command_line.hpp"
#include "beast/tuner/tuner.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast::cli {

// The command line of beast tune, as given.
struct TuneArgs {
  std::vector<std::string> templates, problems, job_files, devices, constraints, constraint_files;
  std::string db = "beast.db", templates_dir, baselines = "auto", cache_dir, shard;
  std::string progress_label, strategy, transfer = "auto", retry_failed;
  double time_budget = 0;
  long patience = 0;
  long max_configs = 0, seed = 1, max_reps = 30, compile_jobs = -1, confirm_top = 3;
  long share_fd = -1, retry_before_run = 0;
  double max_seconds = 2.0, timeout_seconds = 60, progress_seconds = 10, setup_seconds = 600;
  bool ignore_soft = false, quiet = false, json = false, no_cache = false, flush_cache = false;
};

// Reads beast tune's command line into `a`; false after --help.
bool ParseTuneArgs(VerbApp& app, const Argv& argv, TuneArgs* a);

// Everything the command line says, checked; the --device selectors go to
// *devices (the first is also TuneOptions::device).
TuneOptions OptionsOf(const CLI::App& app, const TuneArgs& a, const Argv& argv,
                      std::vector<DeviceSelector>* devices);

}  // namespace beast::cli
