// beast tune: tunes templates on problems on one device into a database,
// with a progress line and a table of winners (or a JSON summary) at the end.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "beast/cli/command_line.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/tune_json.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/cluster/launcher.hpp"
#if BEAST_WITH_MPI
#include "beast/cluster/cluster_coordinator.hpp"
#include "beast/cluster/cluster_rank.hpp"
#include "beast/cluster/mpi/mpi_session.hpp"
#include "beast/tuner/interrupt_guard.hpp"
#endif
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/job_file.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/space/user_constraints.hpp"
#include "beast/tuner/multi_device_tune.hpp"
#include "beast/tuner/tuner.hpp"
#include "harness/devices/device_resolver.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Measures the configs of each template on each problem of its op on device D\n"
    "(default: the first CUDA GPU, else the first OpenCL device) and records every outcome\n"
    "in FILE (default beast.db). On a CUDA GPU (cuda:N) kernels are compiled with NVRTC for\n"
    "its architecture and timed with CUDA events.\n"
    "Without --template, every template of the problems' ops is tuned (the algorithm is the\n"
    "tuner's choice: direct, implicit GEMM, Winograd); --template conv2d/* names a family.\n"
    "A template chosen so that does not compute a problem (Winograd on a 1x1 filter) is\n"
    "left out and listed, and the summary names the fastest algorithm of each problem.\n"
    "--max-configs N measures the default config plus N-1 configs a search strategy\n"
    "chooses (--strategy: model, the default: a cost model learns from every outcome and\n"
    "proposes batches with exploration forced into each; random; exhaustive), seeded by\n"
    "--seed S; 0 (the default) measures the whole space (exhaustive unless --strategy,\n"
    "--patience or --time-budget is given). --time-budget DURATION (90m, 1h30m, 45s) ends\n"
    "the measuring when the run's wall clock reaches it, each problem getting its share of\n"
    "the time left (a problem reached late still measures its default config); --patience\n"
    "M ends a template's problem after M configs without a 1% gain (not compile-only,\n"
    "which has no times). --transfer auto (the default) lets the\n"
    "model learn from what the database holds of the same template on other problems and\n"
    "devices; none does not. Configs already in the database for this device, problem\n"
    "and template version are not measured again:\n"
    "the search learns their recorded outcome, so a rerun resumes the same trajectory.\n"
    "Kernels run in a device worker process: one that crashes is recorded `crashed`, one\n"
    "that runs past its time limit `timeout`, and a fresh worker goes on. A config whose\n"
    "worker died is measured once more in a fresh worker first (a worker killed from\n"
    "outside is not the kernel's fault): only a second death is recorded. --retry-failed\n"
    "[STATUS,...] measures the recorded failures of those statuses again (default\n"
    "crashed,timeout,runtime_error), keeping the old outcomes as history. The limit is\n"
    "--timeout-seconds per config (default 60, build included; the problem's inputs and\n"
    "reference, made once, are not), and once the problem has a best time b, 3 s + 5 x\n"
    "build time + 50 x b x (1 + 2 warm-ups + max reps) after the build.\n"
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
    "A template named with --template whose space is empty for a problem (the constraints\n"
    "that removed the last configs are named; --ignore-soft drops the soft ones) is left out\n"
    "and the others are tuned: the summary lists the empty ones and the exit code is 3 (one\n"
    "chosen by the problem's op or a family is listed as not computed, exit 0). When every\n"
    "space is empty nothing is tuned (exit 1).\n"
    "Built programs go into a cache on disk, keyed by source, options, device and driver:\n"
    "--cache-dir DIR (default $BEAST_CACHE_DIR, set but empty: no cache; else\n"
    "$XDG_CACHE_HOME/beast/programs, or ~/.cache/beast/programs),\n"
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
    "the summary (--json: an array of summaries).\n"
    "Under mpirun (or srun with PMIx; a beast built with MPI), rank 0 coordinates (it alone\n"
    "opens the database) and every other rank measures on one device: cuda:local is the\n"
    "node's GPU of the rank's place among the node's device ranks (the default there when\n"
    "the node has GPUs), several --device are dealt to a node's ranks in turn. Ranks with\n"
    "one device share the configs, dealt to whichever has a free slot; a killed job resumes\n"
    "with the same command.\n";

// --shard I/N: this run's share of a multi-device run (I in 0..N-1).
void ParseShard(const std::string& text, TuneOptions* o) {
  const size_t slash = text.find('/');
  char* end = nullptr;
  long index = slash == std::string::npos ? -1 : std::strtol(text.c_str(), &end, 10);
  char* count_end = nullptr;
  long count =
      slash == std::string::npos ? 0 : std::strtol(text.c_str() + slash + 1, &count_end, 10);
  if (slash == std::string::npos || end != text.c_str() + slash || count < 1 || index < 0 ||
      index >= count || count_end != text.c_str() + text.size())
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

// $BEAST_CACHE_DIR when set (empty: no cache; a job or a test gives beast
// a cache of its own without moving every other program's XDG cache), else
// $XDG_CACHE_HOME/beast/programs, else ~/.cache/beast/programs (XDG's
// default): one cache for every run and database of the user, as compilers'
// caches are; "" (no cache) when none of them is set. A relative
// XDG_CACHE_HOME is ignored, as the XDG spec says (and the exported
// library's cache does).
std::string DefaultCacheDir() {
  if (const char* own = std::getenv("BEAST_CACHE_DIR")) return own;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/beast/programs";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/beast/programs";
  return "";
}

// The exit code of a run that tuned every problem it could while others
// had empty spaces: not 0 (a job must notice), not 1 (nothing failed).
constexpr int kSomeSpacesEmpty = 3;

// The command line of beast tune, as given.
struct TuneArgs {
  std::vector<std::string> templates, problems, job_files, devices, constraints, constraint_files;
  std::string db = "beast.db", templates_dir, baselines = "auto", cache_dir, shard;
  std::string progress_label, strategy, transfer = "auto", retry_failed;
  double time_budget = 0;
  long patience = 0;
  long max_configs = 0, seed = 1, max_reps = 30, compile_jobs = -1, confirm_top = 3;
  long share_fd = -1, retry_before_run = 0;
  double max_seconds = 2.0, timeout_seconds = 60, progress_seconds = 10;
  bool ignore_soft = false, quiet = false, json = false, no_cache = false, flush_cache = false;
};

void DeclareOptions(CLI::App& app, TuneArgs* a) {
  AddRepeated(app, "--template", &a->templates,
              "a template to tune (repeatable), or a family (conv2d/*); none: every template of "
              "the problems' ops");
  AddRepeated(app, "--problem", &a->problems, "a problem to tune (repeatable)");
  AddRepeated(app, "--problems", &a->job_files,
              "a job file: problem keys, one per line, each with an optional weight xN");
  AddRepeated(app, "--device", &a->devices,
              "opencl:N, cuda:N or cuda:sm_XX (repeatable: several devices at once)");
  app.add_option("--db", a->db, "the database (default beast.db)");
  AddInteger(app, "--max-configs", &a->max_configs,
             "configs per problem, the default included; 0: the whole space");
  app.add_option("--strategy", a->strategy, "model (the default), random or exhaustive");
  AddInteger(app, "--seed", &a->seed, "the strategy's seed");
  AddDuration(app, "--time-budget", &a->time_budget, "the run's wall clock for measuring");
  AddInteger(app, "--patience", &a->patience, "configs without a 1% gain that end a problem");
  app.add_option("--transfer", a->transfer, "auto (learn from other problems) or none");
  app.add_option("--retry-failed", a->retry_failed,
                 "measure recorded failures again: STATUS,... (default "
                 "crashed,timeout,runtime_error)")
      ->expected(0, 1);
  AddRepeated(app, "--constraint", &a->constraints, "an extra constraint (repeatable)");
  AddRepeated(app, "--constraints", &a->constraint_files, "a constraint file (repeatable)");
  app.add_flag("--ignore-soft", a->ignore_soft, "apply the hard constraints only");
  app.add_option("--templates", a->templates_dir, "the templates folder");
  AddInteger(app, "--max-reps", &a->max_reps, "timed repetitions per config at most");
  AddSeconds(app, "--max-seconds", &a->max_seconds, "timed repetitions of a config at most");
  AddSeconds(app, "--timeout-seconds", &a->timeout_seconds, "per config, build included");
  app.add_option("--baselines", a->baselines, "auto, clblast, nvidia or none");
  app.add_option("--cache-dir", a->cache_dir, "the program cache");
  app.add_flag("--no-cache", a->no_cache, "build every program afresh");
  AddInteger(app, "--compile-jobs", &a->compile_jobs, "compile workers (default: one per core)");
  AddInteger(app, "--confirm-top", &a->confirm_top,
             "re-measure the K best side by side at the end (0: off)");
  app.add_flag("--flush-cache", a->flush_cache, "write over the last-level cache before each run");
  AddSeconds(app, "--progress-seconds", &a->progress_seconds, "between plain progress lines");
  app.add_flag("--quiet", a->quiet, "no progress");
  app.add_flag("--json", a->json, "print a JSON summary");
  // Given by a multi-device run to the process of each device.
  app.add_option("--shard", a->shard, "I/N: this device's share")->group("");
  app.add_option("--progress-label", a->progress_label, "the progress lines' prefix")->group("");
  AddInteger(app, "--share-fd", &a->share_fd, "where the share's summary goes")->group("");
  AddInteger(app, "--retry-before-run", &a->retry_before_run,
             "the failures to retry are those of runs up to this id")
      ->group("");
}

void ReadConstraints(const TuneArgs& a, TuneOptions* o) {
  o->bind.ignore_soft = a.ignore_soft;
  for (const auto& text : a.constraints) o->bind.extra.push_back(ParseUserConstraint(text));
  for (const auto& file : a.constraint_files) {
    for (auto& c : LoadConstraintFile(file, Paths::Default().constraints_dir))
      o->bind.extra.push_back(c);
  }
}

// --retry-failed [STATUS,...]: the failure statuses to measure again.
std::set<Status> RetryStatuses(const std::string& list) {
  const std::string text = list.empty() ? "crashed,timeout,runtime_error" : list;
  std::set<Status> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    const std::optional<Status> status = ParseStatus(name);
    if (!status || *status == Status::kOk || !IsMeasurementStatus(*status) ||
        *status == Status::kCompiled)
      throw Error(ErrorCode::kBadArgument,
                  "--retry-failed: \"" + name +
                      "\" is not a failure status (compile_error, runtime_error, crashed, "
                      "timeout, wrong_result, pruned_after_compile)");
    out.insert(*status);
    start = comma + 1;
  }
  return out;
}

void ReadMeasuring(const CLI::App& app, const TuneArgs& a, TuneOptions* o) {
  if (a.max_configs < 0) throw Error(ErrorCode::kBadArgument, "--max-configs must not be negative");
  o->max_configs = static_cast<uint64_t>(a.max_configs);
  o->strategy = a.strategy;
  if (a.seed < 0) throw Error(ErrorCode::kBadArgument, "--seed must not be negative");
  o->seed = static_cast<uint64_t>(a.seed);
  o->time_budget_seconds = a.time_budget;
  if (a.patience < 0) throw Error(ErrorCode::kBadArgument, "--patience must not be negative");
  o->patience = static_cast<uint64_t>(a.patience);
  if (a.transfer != "auto" && a.transfer != "none")
    throw Error(ErrorCode::kBadArgument,
                "--transfer must be auto or none, not \"" + a.transfer + "\"");
  o->transfer = a.transfer == "auto";
  o->max_reps = static_cast<int>(a.max_reps);
  if (o->max_reps < o->min_reps) o->min_reps = o->max_reps < 1 ? 1 : o->max_reps;
  if (o->max_reps < 1) throw Error(ErrorCode::kBadArgument, "--max-reps must be at least 1");
  o->max_seconds_per_config = a.max_seconds;
  o->timeout_seconds = a.timeout_seconds;
  o->baselines = a.baselines;
  if (o->baselines != "clblast" && o->baselines != "nvidia" && o->baselines != "none" &&
      o->baselines != "auto") {
    throw Error(ErrorCode::kBadArgument,
                "--baselines must be auto, clblast, nvidia or none, not \"" + o->baselines + "\"");
  }
  o->flush_cache = a.flush_cache;
  if (a.confirm_top < 0 || a.confirm_top == 1 || a.confirm_top > 100) {
    throw Error(ErrorCode::kBadArgument,
                "--confirm-top must be 0 (off) or 2 to 100 configs to compare");
  }
  o->confirm_top = static_cast<int>(a.confirm_top);
  if (Given(app, "--retry-failed")) o->retry_failed = RetryStatuses(a.retry_failed);
}

void ReadCompiling(const CLI::App& app, const TuneArgs& a, TuneOptions* o) {
  if (a.no_cache && Given(app, "--cache-dir"))
    throw Error(ErrorCode::kBadArgument, "--cache-dir and --no-cache exclude each other");
  o->cache_dir = a.no_cache ? "" : Given(app, "--cache-dir") ? a.cache_dir : DefaultCacheDir();
  if (Given(app, "--compile-jobs") && a.compile_jobs < 0)
    throw Error(ErrorCode::kBadArgument, "--compile-jobs must not be negative");
  if (a.compile_jobs > 0 && o->cache_dir.empty()) {
    // Which of the ways to an empty cache this run took.
    const std::string why = a.no_cache                       ? "drop --no-cache"
                            : Given(app, "--cache-dir")      ? "--cache-dir is empty"
                            : std::getenv("BEAST_CACHE_DIR") ? "BEAST_CACHE_DIR is set empty"
                                                             : "set BEAST_CACHE_DIR or HOME";
    throw Error(ErrorCode::kBadArgument, "--compile-jobs needs the program cache (" + why + ")");
  }
  o->compile_jobs = static_cast<int>(a.compile_jobs);
}

// The templates to tune: those named, a family (conv2d/*) expanded to its
// members, or with none named every template of the problems' ops; the
// latter two are chosen by the problems (TuneOptions::templates_by_problem).
std::vector<std::string> TemplatesOf(const std::vector<std::string>& named,
                                     const std::vector<Problem>& problems,
                                     const std::string& templates_dir, bool* by_problem) {
  const std::vector<std::string> all =
      SpaceSpec::List(templates_dir.empty() ? Paths::Default().templates_dir : templates_dir);
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  *by_problem = named.empty();
  if (named.empty()) {
    std::set<std::string> ops;
    for (const Problem& p : problems) ops.insert(p.OpName());
    for (const std::string& name : all)
      if (ops.count(name.substr(0, name.find('/')))) add(name);
  }
  for (const std::string& name : named) {
    if (name.size() < 2 || name.compare(name.size() - 2, 2, "/*") != 0) {
      add(name);
      continue;
    }
    const std::string family = name.substr(0, name.size() - 1);  // "conv2d/"
    size_t members = 0;
    for (const std::string& t : all) {
      if (t.rfind(family, 0) != 0) continue;
      add(t);
      ++members;
    }
    if (members == 0) throw Error(ErrorCode::kNotFound, "no template of the family " + name);
    *by_problem = true;
  }
  return out;
}

// Everything the command line says, checked.
TuneOptions OptionsOf(const CLI::App& app, const TuneArgs& a, const Argv& argv,
                      std::vector<DeviceSelector>* devices) {
  TuneOptions o;
  // The same problem twice (in another spelling, say) is tuned once, its
  // weights (the layers that share it) added up.
  std::vector<JobProblem> job;
  for (const auto& file : a.job_files) {
    for (JobProblem& p : ReadJobFile(file)) AddToJob(&job, std::move(p.problem), p.weight);
  }
  for (const auto& p : a.problems) AddToJob(&job, Problem::Parse(p), 1);
  for (JobProblem& p : job) {
    o.weights[p.problem.Key()] = p.weight;
    o.problems.push_back(std::move(p.problem));
  }
  o.job = !a.job_files.empty();
  if (o.problems.empty())
    throw Error(ErrorCode::kBadArgument, "--problem or --problems is required");
  o.templates = TemplatesOf(a.templates, o.problems, a.templates_dir, &o.templates_by_problem);
  for (const auto& d : a.devices) devices->push_back(DeviceSelector::Parse(d));
  // Under mpirun each device rank picks its own (cluster_rank.hpp).
  if (!devices->empty()) {
    o.device = devices->front();
  } else if (!LaunchedAsRanks()) {
    o.device = BestDevice();
  }
  o.db_path = a.db;
  o.templates_dir = a.templates_dir;
  ReadConstraints(a, &o);
  ReadMeasuring(app, a, &o);
  ReadCompiling(app, a, &o);
  o.progress = !a.quiet;
  o.progress_label = a.progress_label;
  o.progress_seconds = a.progress_seconds;
  if (Given(app, "--shard")) ParseShard(a.shard, &o);
  o.retry_before_run = a.retry_before_run;
  o.command_line = "beast tune";
  for (const auto& arg : argv) o.command_line += " " + arg;
  return o;
}

// The summaries of a run on several devices (one per device group): a
// table each, or one JSON array; the exit code.
int PrintGroups(const std::vector<TuneSummary>& groups, bool interrupted, bool json) {
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const TuneSummary& group : groups) out.push_back(SummaryJson(group));
    std::printf("%s\n", JsonText(out).c_str());
  } else if (interrupted && groups.empty()) {
    std::printf("run interrupted, run the same command again to resume\n");
  } else {
    for (const TuneSummary& group : groups) std::fputs(FormatTuneSummary(group).c_str(), stdout);
  }
  if (interrupted) return 130;
  for (const TuneSummary& group : groups)
    if (!group.empty_spaces.empty()) return kSomeSpacesEmpty;
  return 0;
}

int TuneOnSeveralDevices(const TuneOptions& o, const std::vector<DeviceSelector>& devices,
                         const Argv& argv, bool json) {
  MultiDeviceSummary run = TuneOnDevices(
      o, devices,
      // What each device process is given anew: a repeated option is refused.
      Without(argv, {"device", "baselines", "confirm-top", "progress-label"}, {"json", "quiet"}));
  return PrintGroups(run.groups, run.interrupted, json);
}

constexpr char kSummary[] = "Tune templates on problems on a device, into a database.";

// Reads beast tune's command line into `a`; false after --help.
bool ParseTuneArgs(VerbApp& app, const Argv& argv, TuneArgs* a) {
  DeclareOptions(app, a);
  std::vector<std::string> positional;
  if (!ParseCommandLine(app, argv, &positional)) return false;
  if (!positional.empty())
    throw Error(ErrorCode::kBadArgument, "unexpected argument \"" + positional[0] + "\"");
  return true;
}

#if BEAST_WITH_MPI
// beast tune as a rank of an MPI job: rank 0 coordinates and prints, every
// other rank serves one device (beast/cluster/). Bad input is one line, from
// rank 0 alone: a device rank's own (a file missing on its node) reaches it
// as the run's error, and whichever rank fails first, every other is told
// the run is over rather than left waiting.
int TuneAsRank(const Argv& argv) {
  MpiSession mpi;
  InterruptGuard guard;
  bool coordinating = false;  // CoordinateTune ends the ranks itself
  // A rank that ends before the run starts tells the others first: MPI's
  // end waits for every rank, and the others would wait for it.
  const auto end_unstarted = [&](const std::string& why) {
    if (mpi.rank() != 0) {
      RefuseToServe(mpi, mpi.host(), why, InterruptGuard::Stop());
    } else if (!coordinating) {
      EndUnstartedRun(mpi);
    }
  };
  // Said before MPI ends here: once every rank has ended MPI, mpirun may stop
  // this process for another rank's non-zero exit before main could print.
  const auto say = [&](const std::string& line) {
    if (mpi.rank() != 0) return;  // rank 0 says it
    std::fflush(stdout);
    std::fprintf(stderr, "beast tune: %s\n", line.c_str());
    std::fflush(stderr);
  };
  try {
    VerbApp app("tune", kSummary, kDetails);
    TuneArgs a;
    if (!ParseTuneArgs(app, argv, &a)) {  // --help
      end_unstarted("--help was given to this rank: it printed the help and serves nothing");
      return 0;
    }
    if (Given(app, "--shard") || Given(app, "--share-fd"))
      throw Error(ErrorCode::kBadArgument, "--shard is not taken under mpirun");
    std::vector<DeviceSelector> devices;
    TuneOptions o = OptionsOf(app, a, argv, &devices);
    o.command_line += " (mpirun: " + std::to_string(mpi.size()) + " ranks)";
    if (mpi.rank() != 0)
      return ServeDevice(mpi, o, devices, mpi.local_device_index(), mpi.host(),
                         InterruptGuard::Stop());
    coordinating = true;
    ClusterRun run = CoordinateTune(mpi, o, InterruptGuard::Stop());
    return PrintGroups(run.groups, run.interrupted, a.json);
  } catch (const Error& e) {
    end_unstarted(e.what());
    say(e.what());
    return e.code() == ErrorCode::kBadArgument ? 2 : 1;
  } catch (const std::exception& e) {
    end_unstarted(std::string("internal error: ") + e.what());
    say(std::string("internal error: ") + e.what());
    return 1;
  }
}
#endif

}  // namespace

int Tune(const Argv& argv) {
  if (std::optional<LaunchedRanks> launched = LaunchedAsRanks()) {
#if BEAST_WITH_MPI
    return TuneAsRank(argv);
#else
    RefuseLaunchWithoutMpi(*launched);
#endif
  }
  VerbApp app("tune", kSummary, kDetails);
  TuneArgs a;
  if (!ParseTuneArgs(app, argv, &a)) return 0;
  std::vector<DeviceSelector> devices;
  const TuneOptions o = OptionsOf(app, a, argv, &devices);
  if (devices.size() > 1) {
    if (Given(app, "--shard"))
      throw Error(ErrorCode::kBadArgument, "--shard goes with one --device");
    return TuneOnSeveralDevices(o, devices, argv, a.json);
  }
  const TuneSummary summary = Tune(o);
  if (Given(app, "--share-fd")) WriteShare(static_cast<int>(a.share_fd), summary);
  if (a.json) {
    std::printf("%s\n", JsonText(SummaryJson(summary)).c_str());
  } else {
    std::fputs(FormatTuneSummary(summary).c_str(), stdout);
  }
  if (summary.interrupted) return 130;
  return summary.empty_spaces.empty() ? 0 : kSomeSpacesEmpty;
}

}  // namespace beast::cli
