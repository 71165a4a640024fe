// beast tune: tunes templates on problems on one device into a database,
// with a progress line and a table of winners (or a JSON summary) at the end.
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "beast/cli/args.hpp"
#include "harness/devices/device_resolver.hpp"
#include "beast/core/error.hpp"
#include "beast/core/json.hpp"
#include "beast/tuner/multi_device_tune.hpp"
#include "beast/core/paths.hpp"
#include "beast/tuner/tuner.hpp"
#include "beast/space/user_constraints.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {
namespace {

const char kHelp[] =
    "usage: beast tune --template T [--template T2 ...] --problem P [--problem P2 ...]\n"
    "                  [--device D] [--db FILE] [--max-configs N] [--seed S]\n"
    "                  [--constraint EXPR]... [--constraints FILE]... [--ignore-soft]\n"
    "                  [--templates DIR] [--max-reps N] [--max-seconds S] [--timeout-seconds S]\n"
    "                  [--baselines auto|clblast|nvidia|none] [--cache-dir DIR | --no-cache]\n"
    "                  [--compile-jobs N] [--confirm-top K] [--flush-cache]\n"
    "                  [--progress-seconds S] [--quiet] [--json]\n"
    "Measures the configs of each template on each problem of its op on device D\n"
    "(default: the first CUDA GPU, else the first OpenCL device) and records every outcome\n"
    "in FILE (default beast.db). On a CUDA GPU (cuda:N) kernels are compiled with NVRTC for\n"
    "its architecture and timed with CUDA events.\n"
    "--max-configs N measures the default config plus a uniform sample (seed S) of the\n"
    "valid space; 0 (the default) measures it all. Configs already in the database for\n"
    "this device, problem and template version are skipped, so a rerun resumes.\n"
    "Kernels run in a device worker process: one that crashes is recorded `crashed`, one\n"
    "that runs past its time limit `timeout`, and a fresh worker goes on. The limit is\n"
    "--timeout-seconds per config (default 60, build included), and once the problem has\n"
    "a best time b, 3 s + 5 x build time + 50 x b x (1 + 2 warm-ups + max reps) after the build.\n"
    "--max-seconds S bounds the timed repetitions of a config (default 2).\n"
    "--baselines: the vendor library measured once per problem on the same device, inputs,\n"
    "validation and timing as the kernels (skipped when the database has it): clblast\n"
    "(CLBlast's SGEMM or Convgemm, OpenCL), nvidia (cuBLAS SGEMM and cuDNN's fastest FP32\n"
    "forward convolution by its own search, no TF32; CUDA), auto (the device's own, the\n"
    "default) or none. The device's peak FLOP/s is measured at the start by an FMA\n"
    "microbenchmark. The table shows each winner's speed-up over the library and its\n"
    "fraction of that peak. --flush-cache writes over the device's last-level cache (a\n"
    "GPU's L2) before every timed run, so each starts cold.\n"
    "Progress goes to stderr: on a terminal a live line with a bar, redrawn at least every\n"
    "second; otherwise a plain line every --progress-seconds S (default 10). --quiet drops\n"
    "it. --json prints\n"
    "a JSON summary on stdout instead of the table. Ctrl-C stops at once; the same command\n"
    "resumes. Exit code 130 when interrupted.\n"
    "Built programs go into a cache on disk, keyed by source, options, device and driver:\n"
    "--cache-dir DIR (default $XDG_CACHE_HOME/beast/programs, or ~/.cache/beast/programs),\n"
    "shared by runs and databases, so nothing is compiled twice; --no-cache builds afresh.\n"
    "A directory that cannot hold files stops the run at once. --compile-jobs N compile\n"
    "workers (default: one per core; 0: none) render and build the next configs into the\n"
    "cache ahead of the device; on a CPU device they stop while kernels are timed.\n"
    "--confirm-top K (default 3; 0: off) re-measures the K best configs of each template\n"
    "and problem side by side at the end, in rounds (A B C A B C ...), and the fastest of\n"
    "that re-measurement is the winner; a rerun does not redo it.\n"
    "Post-compile constraints (stage: after_compile in a space or constraint file, or a\n"
    "--constraint that reads registers, spills, stack_bytes or local_mem_used) are checked\n"
    "on each built kernel before it runs; one that fails is recorded pruned_after_compile.\n"
    "OpenCL reports no registers or spills: constraints reading them are not applied there\n"
    "(one line says which).\n"
    "--device cuda:sm_XX (an architecture with a table in constraints/devices) tunes\n"
    "compile-only: the same configs are rendered for CUDA and compiled with NVRTC on every\n"
    "core, and recorded compiled, compile_error or pruned_after_compile with their registers,\n"
    "spills, stack and shared memory. Nothing runs; a rerun resumes.\n"
    "--device may be given several times: each device gets a tuning process and worker of\n"
    "its own, all at once into the same database; identical devices (same name and driver,\n"
    "e.g. several GPUs of one model) share the configs, each measuring its share (the\n"
    "hidden --shard I/N and --progress-label L are what those processes are given); then\n"
    "the first device of each kind measures the baselines, confirms the winners and prints\n"
    "the summary (--json: an array of summaries).\n";

// The re-measurement that confirmed the pair's winner; null when none stands.
std::string ConfirmationJson(const PairSummary& p) {
  if (p.confirmed_candidates < 2) return "null";
  return "{\"candidates\": " + std::to_string(p.confirmed_candidates) +
         ", \"median_ms\": " + JsonNumber(p.confirmed_ms) +
         ", \"this_run\": " + (p.confirmed_now ? "true" : "false") + ", \"by_median_alone\": " +
         (p.unconfirmed_best.empty() ? "null" : JsonString(p.unconfirmed_best)) + "}";
}

std::string PairJson(const PairSummary& p) {
  std::string failures;
  for (const auto& [status, n] : p.failures) {
    failures += (failures.empty() ? "" : ", ") + JsonString(StatusName(status)) + ": " + std::to_string(n);
  }
  std::string best = "null";
  if (p.has_best) {
    best = "{\"config\": " + JsonString(p.best_config) +
           ", \"median_ms\": " + JsonNumber(p.best_ms) +
           ", \"gflops\": " + JsonNumber(p.best_gflops) + ", \"speedup_vs_default\": " +
           (p.speedup_vs_default > 0 ? JsonNumber(p.speedup_vs_default) : "null") +
           ", \"confirmation\": " + ConfirmationJson(p) + "}";
  }
  std::string baseline = "null";
  if (p.baseline_ms > 0) {
    baseline = "{\"library\": " + JsonString(p.baseline_library) +
               ", \"routine\": " + JsonString(p.baseline_routine) +
               ", \"median_ms\": " + JsonNumber(p.baseline_ms) + ", \"speedup\": " +
               (p.has_best && p.best_ms > 0 ? JsonNumber(p.baseline_ms / p.best_ms) : "null") + "}";
  }
  return "{\"template\": " + JsonString(p.template_name) +
         ", \"problem\": " + JsonString(p.problem_key) +
         ", \"space_size\": " + std::to_string(p.space_size) +
         ", \"selected\": " + std::to_string(p.selected) +
         ", \"measured\": " + std::to_string(p.measured) +
         ", \"skipped\": " + std::to_string(p.skipped) +
         ", \"failed\": " + std::to_string(p.failed) + ", \"failures\": {" + failures +
         "}, \"best\": " + best + ", \"baseline\": " + baseline + ", \"fraction_of_peak\": " +
         (p.fraction_of_peak > 0 ? JsonNumber(p.fraction_of_peak) : "null") + ", \"registers\": " +
         (p.min_registers >= 0 ? "{\"min\": " + std::to_string(p.min_registers) +
                                     ", \"max\": " + std::to_string(p.max_registers) + "}"
                               : "null") +
         "}";
}

std::string BaselineJson(const BaselineSummary& b) {
  return "{\"problem\": " + JsonString(b.problem_key) + ", \"library\": " + JsonString(b.library) +
         ", \"routine\": " + JsonString(b.routine) + ", \"status\": " + JsonString(StatusName(b.status)) +
         ", \"median_ms\": " + (b.status == Status::kOk ? JsonNumber(b.median_ms) : "null") +
         ", \"gflops\": " + (b.status == Status::kOk ? JsonNumber(b.gflops) : "null") +
         ", \"error\": " + JsonString(b.error_text) +
         ", \"from_database\": " + (b.from_database ? "true" : "false") + "}";
}

std::string SummaryJson(const TuneSummary& s) {
  std::string pairs;
  for (const auto& p : s.pairs) pairs += (pairs.empty() ? "\n    " : ",\n    ") + PairJson(p);
  std::string baselines;
  for (const auto& b : s.baselines)
    baselines += (baselines.empty() ? "\n    " : ",\n    ") + BaselineJson(b);
  std::string peak = "null";
  if (s.peak_gflops > 0) {
    peak = "{\"gflops\": " + JsonNumber(s.peak_gflops) +
           ", \"method\": " + JsonString(s.peak_method) +
           ", \"best_variant\": " + JsonString(s.peak_variant) + "}";
  }
  std::string devices;
  for (const std::string& d : s.devices) devices += (devices.empty() ? "" : ", ") + JsonString(d);
  return "{\n  \"device\": " + JsonString(s.device_id) +
         ",\n  \"device_name\": " + JsonString(s.device_name) +
         (s.devices.empty() ? std::string() : ",\n  \"devices\": [" + devices + "]") +
         ",\n  \"compile_only\": " + (s.compile_only ? "true" : "false") +
         (s.compile_only ? ",\n  \"compiler\": " + JsonString(s.compiler) +
                               ",\n  \"compiler_version\": " + JsonString(s.compiler_version) +
                               ",\n  \"compile_threads\": " + std::to_string(s.compile_threads)
                         : std::string()) +
         ",\n  \"post_compile_not_applied\": " +
         (s.post_compile_not_applied.empty() ? "null" : JsonString(s.post_compile_not_applied)) +
         ",\n  \"interrupted\": " + (s.interrupted ? "true" : "false") +
         ",\n  \"wall_seconds\": " + JsonNumber(s.wall_seconds) +
         ",\n  \"compile_seconds\": " + JsonNumber(s.compile_seconds) +
         ",\n  \"first_launch_seconds\": " + JsonNumber(s.first_launch_seconds) +
         ",\n  \"benchmark_seconds\": " + JsonNumber(s.benchmark_seconds) +
         ",\n  \"device_busy_fraction\": " + JsonNumber(s.DeviceBusyFraction()) +
         ",\n  \"worker_restarts\": " + std::to_string(s.worker_restarts) +
         ",\n  \"programs_compiled\": " + std::to_string(s.programs_compiled) +
         ",\n  \"programs_from_cache\": " + std::to_string(s.programs_from_cache) +
         ",\n  \"cache_dir\": " + (s.cache_dir.empty() ? "null" : JsonString(s.cache_dir)) +
         ",\n  \"compile_jobs\": " + std::to_string(s.compile_jobs) +
         ",\n  \"compile_wait_seconds\": " + JsonNumber(s.compile_wait_seconds) +
         ",\n  \"confirm_seconds\": " + JsonNumber(s.confirm_seconds) + ",\n  \"peak\": " + peak +
         ",\n  \"baselines\": [" + baselines + (baselines.empty() ? "]" : "\n  ]") +
         ",\n  \"pairs\": [" + pairs + (pairs.empty() ? "]" : "\n  ]") + "\n}\n";
}

// --shard I/N: this run's share of a multi-device run (I in 0..N-1).
void ParseShard(const std::string& text, TuneOptions* o) {
  const size_t slash = text.find('/');
  char* end = nullptr;
  long index = slash == std::string::npos ? -1 : std::strtol(text.c_str(), &end, 10);
  long count = slash == std::string::npos ? 0 : std::strtol(text.c_str() + slash + 1, nullptr, 10);
  if (slash == std::string::npos || end != text.c_str() + slash || count < 1 || index < 0 ||
      index >= count)
    throw Error(ErrorCode::kBadArgument,
                "--shard must be I/N with 0 <= I < N, not \"" + text + "\"");
  o->shard_index = static_cast<int>(index);
  o->shard_count = static_cast<int>(count);
}

// argv without the given options (--name VALUE or --name=VALUE) and flags.
std::vector<std::string> Without(const Argv& argv, const std::set<std::string>& options,
                                 const std::set<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const std::string name =
        a.rfind("--", 0) == 0
            ? a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2)
            : "";
    if (flags.count(name)) continue;
    if (options.count(name)) {
      if (a.find('=') == std::string::npos) ++i;  // its value follows
      continue;
    }
    out.push_back(a);
  }
  return out;
}

// $XDG_CACHE_HOME/beast/programs, else ~/.cache/beast/programs (XDG's
// default): one cache for every run and database of the user, as compilers'
// caches are; "" (no cache) when neither variable is set.
std::string DefaultCacheDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/beast/programs";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/beast/programs";
  return "";
}

double PositiveSeconds(const Args& args, const std::string& name, double fallback) {
  if (!args.Has(name)) return fallback;
  std::string text = args.Get(name);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(v > 0)) {
    throw Error(
        ErrorCode::kBadArgument,
        "--" + name + " must be a positive number of seconds, not \"" + text + "\"");
  }
  return v;
}

}  // namespace

int Tune(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv,
            {"template",    "problem",         "device",         "db",        "max-configs",
             "seed",        "constraint",      "constraints",    "templates", "max-reps",
             "max-seconds", "timeout-seconds", "baselines",      "cache-dir", "compile-jobs",
             "confirm-top", "shard",           "progress-label", "share-fd",  "progress-seconds"},
            {"ignore-soft", "quiet", "json", "no-cache", "flush-cache"}, "tune");
  if (!args.positional().empty()) {
    throw Error(ErrorCode::kBadArgument,
                "unexpected argument \"" + args.positional()[0] + "\"");
  }
  TuneOptions o;
  o.templates = args.GetAll("template");
  if (o.templates.empty())
    throw Error(ErrorCode::kBadArgument, "--template is required");
  for (const auto& p : args.GetAll("problem")) o.problems.push_back(Problem::Parse(p));
  if (o.problems.empty()) throw Error(ErrorCode::kBadArgument, "--problem is required");
  std::vector<DeviceSelector> devices;
  for (const auto& d : args.GetAll("device")) devices.push_back(DeviceSelector::Parse(d));
  o.device = devices.empty() ? BestDevice() : devices.front();
  o.db_path = args.Get("db", "beast.db");
  o.templates_dir = args.Get("templates", "");
  long max_configs = args.GetInt("max-configs", 0);
  if (max_configs < 0)
    throw Error(ErrorCode::kBadArgument, "--max-configs must not be negative");
  o.max_configs = static_cast<uint64_t>(max_configs);
  o.seed = static_cast<uint64_t>(args.GetInt("seed", 1));
  o.bind.ignore_soft = args.Has("ignore-soft");
  for (const auto& text : args.GetAll("constraint"))
    o.bind.extra.push_back(ParseUserConstraint(text));
  for (const auto& file : args.GetAll("constraints")) {
    for (auto& c : LoadConstraintFile(file, Paths::Default().constraints_dir))
      o.bind.extra.push_back(c);
  }
  o.max_reps = static_cast<int>(args.GetInt("max-reps", o.max_reps));
  if (o.max_reps < o.min_reps) o.min_reps = o.max_reps < 1 ? 1 : o.max_reps;
  if (o.max_reps < 1)
    throw Error(ErrorCode::kBadArgument, "--max-reps must be at least 1");
  o.max_seconds_per_config = PositiveSeconds(args, "max-seconds", o.max_seconds_per_config);
  o.timeout_seconds = PositiveSeconds(args, "timeout-seconds", o.timeout_seconds);
  o.baselines = args.Get("baselines", "auto");
  if (o.baselines != "clblast" && o.baselines != "nvidia" && o.baselines != "none" &&
      o.baselines != "auto") {
    throw Error(ErrorCode::kBadArgument,
                "--baselines must be auto, clblast, nvidia or none, not \"" +
                    o.baselines + "\"");
  }
  o.flush_cache = args.Has("flush-cache");
  if (args.Has("no-cache") && args.Has("cache-dir"))
    throw Error(ErrorCode::kBadArgument, "--cache-dir and --no-cache exclude each other");
  o.cache_dir = args.Has("no-cache") ? "" : args.Get("cache-dir", DefaultCacheDir());
  long compile_jobs = args.GetInt("compile-jobs", -1);
  if (args.Has("compile-jobs") && compile_jobs < 0)
    throw Error(ErrorCode::kBadArgument, "--compile-jobs must not be negative");
  if (compile_jobs > 0 && o.cache_dir.empty()) {
    throw Error(ErrorCode::kBadArgument,
                "--compile-jobs needs the program cache (drop --no-cache)");
  }
  o.compile_jobs = static_cast<int>(compile_jobs);
  long confirm_top = args.GetInt("confirm-top", o.confirm_top);
  if (confirm_top < 0 || confirm_top == 1 || confirm_top > 100) {
    throw Error(ErrorCode::kBadArgument,
                "--confirm-top must be 0 (off) or 2 to 100 configs to compare");
  }
  o.confirm_top = static_cast<int>(confirm_top);
  o.progress = !args.Has("quiet");
  o.progress_label = args.Get("progress-label", "");
  o.progress_seconds = PositiveSeconds(args, "progress-seconds", o.progress_seconds);
  if (args.Has("shard")) ParseShard(args.Get("shard"), &o);
  o.command_line = "beast tune";
  for (const auto& a : argv) o.command_line += " " + a;
  if (devices.size() > 1) {
    if (args.Has("shard"))
      throw Error(ErrorCode::kBadArgument, "--shard goes with one --device");
    MultiDeviceSummary run =
        TuneOnDevices(o, devices, Without(argv, {"device"}, {"json", "quiet"}));
    std::string out;
    for (size_t i = 0; i < run.groups.size(); ++i) {
      out += args.Has("json") ? (i ? "," : "") + SummaryJson(run.groups[i])
                              : FormatTuneSummary(run.groups[i]);
    }
    if (args.Has("json")) out = "[" + out + "]\n";
    if (run.interrupted && run.groups.empty())
      out = args.Has("json") ? "[]\n" : "run interrupted, run the same command again to resume\n";
    std::fputs(out.c_str(), stdout);
    return run.interrupted ? 130 : 0;
  }
  TuneSummary summary = Tune(o);
  if (args.Has("share-fd")) {  // a device's process of a multi-device run
    WriteShare(static_cast<int>(args.GetInt("share-fd", -1)), summary);
  }
  std::fputs((args.Has("json") ? SummaryJson(summary) : FormatTuneSummary(summary)).c_str(),
             stdout);
  return summary.interrupted ? 130 : 0;
}

}  // namespace beast::cli
