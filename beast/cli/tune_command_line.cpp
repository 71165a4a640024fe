// beast tune's command line read into TuneOptions (tune_command_line.hpp).
#include "beast/cli/tune_command_line.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "beast/cluster/launcher.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/job_file.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/space/user_constraints.hpp"

namespace beast::cli {
namespace {

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
  AddSeconds(app, "--setup-seconds", &a->setup_seconds,
             "a problem's inputs and reference, made once (default 600, or "
             "--timeout-seconds if longer)");
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
  o->setup_seconds = a.setup_seconds;
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

}  // namespace

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

bool ParseTuneArgs(VerbApp& app, const Argv& argv, TuneArgs* a) {
  DeclareOptions(app, a);
  std::vector<std::string> positional;
  if (!ParseCommandLine(app, argv, &positional)) return false;
  if (!positional.empty())
    throw Error(ErrorCode::kBadArgument, "unexpected argument \"" + positional[0] + "\"");
  return true;
}

}  // namespace beast::cli
