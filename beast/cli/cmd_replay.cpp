// beast replay: a search strategy run against a recorded full space — a
// Kernel Tuner cache (optionally with its T1 space) or a space beast measured
// whole into a database — with no device, repeated over seeds, at one or
// several budgets, one strategy or several side by side, optionally with
// other caches of the kernel as the strategy's transfer set.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>

#include "beast/cli/command_line.hpp"
#include "beast/cli/device_name.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/export/export_plan.hpp"
#include "beast/problem/problem.hpp"
#include "beast/search/bound_search_space.hpp"
#include "beast/search/permutation.hpp"
#include "beast/search/replay.hpp"
#include "beast/search/strategy.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/space/t1_import.hpp"
#include "results_db/store.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Replays a strategy against a recorded space, every config of which was measured once:\n"
    "each config the strategy proposes \"measures\" as recorded, through the same driver as\n"
    "beast tune, so a strategy is judged in seconds. The fraction of a run is the space's\n"
    "optimum time / the best time it found (1: found the optimum; 0: nothing ran ok).\n"
    "  --kernel-tuner FILE  a Kernel Tuner cache (.json or .json.gz, also one left open by\n"
    "                       a killed run): the space is its configs, or the T1 file's space\n"
    "                       (--t1), every point of which the cache must hold\n"
    "  --db FILE --device D --problem P --template T\n"
    "                       a space beast measured whole: the configs of that pair\n"
    "--budget N configs per run (failures included; default 100), --budgets 20,50,100 one\n"
    "row per budget, --repeats R runs with seeds S..S+R-1 (--seed S, default 0),\n"
    "--strategy NAME (default: beast tune's default) or --compare random,model,... one\n"
    "column per strategy. --lead L proposes the next batch when L proposed configs are\n"
    "left unmeasured (default 2, as beast tune on a CPU device; on a GPU it keeps 8).\n"
    "--workers W --at 60,120,300 also simulates the run's wall clock from\n"
    "a Kernel Tuner cache's compile and benchmark times (W compile workers building what is\n"
    "proposed, one device measuring in order) and reports the fraction reached and the configs\n"
    "measured by each of those seconds. --transfer FILE (repeatable) gives the strategy the\n"
    "trials of other Kernel Tuner caches of the same kernel (other devices or problems) to\n"
    "start from, as beast tune starts from a database's (--transfer auto): of each, at most\n";

// The details, with the transfer cap that tune uses.
std::string Details() {
  return kDetails + std::to_string(kMaxTransferTrialsPerGroup) +
         " configs that are points of the space replayed, a fixed uniform sample. --json\n"
         "prints one object per (strategy, budget).\n";
}

struct ReplayArgs {
  std::string kernel_tuner, t1, db, device, problem, template_name;
  std::string strategy = kDefaultStrategy, budgets, compare;
  long budget = 100, repeats = 20, seed = 0, lead = 2, workers = 0;
  std::string at;
  std::vector<std::string> transfer;
  bool json = false;
};

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<size_t> Budgets(const CLI::App& app, const ReplayArgs& a) {
  std::vector<size_t> budgets;
  if (Given(app, "--budget") && Given(app, "--budgets"))
    throw Error(ErrorCode::kBadArgument, "give --budget N or --budgets N,... (one of them)");
  if (!Given(app, "--budgets")) {
    if (a.budget < 1) throw Error(ErrorCode::kBadArgument, "--budget must be at least 1");
    budgets.push_back(static_cast<size_t>(a.budget));
  } else {
    if (Split(a.budgets).empty())
      throw Error(ErrorCode::kBadArgument, "--budgets takes at least one budget");
    for (const std::string& b : Split(a.budgets)) {
      char* end = nullptr;
      const long v = std::strtol(b.c_str(), &end, 10);
      if (*end || v < 1)
        throw Error(ErrorCode::kBadArgument, "--budgets takes positive numbers, not \"" + b + "\"");
      budgets.push_back(static_cast<size_t>(v));
    }
  }
  for (size_t b : budgets) {
    if (b < 1) throw Error(ErrorCode::kBadArgument, "--budget must be at least 1");
  }
  return budgets;
}

// How much of its template's space (bound now, to the device as recorded)
// `measured` configs are, when it is more: a replay of a part judges every
// strategy against that part's optimum, and overstates them all. "" when
// they cover it, or when the template's file is no longer the version
// measured (or not one of beast's).
std::string Coverage(results_db::Store& store, const results_db::ResultRow& newest,
                     size_t measured) {
  try {
    const SpaceSpec spec = SpaceSpec::Load(Paths::Default().templates_dir, newest.template_name);
    if (spec.hash != newest.template_hash) return "";
    // A winner row carries the device's recorded limits, which bind the space.
    const std::vector<results_db::WinnerRow> winners = store.Winners(newest.device_id);
    if (winners.empty()) return "";
    const uint64_t whole =
        BoundSpace(spec, Problem::Parse(newest.problem_key), BindingDevice(winners.front()))
            .Count();
    if (measured >= whole) return "";
    return " [" + std::to_string(measured) + " of the " + std::to_string(whole) +
           " configs of its space measured: a replay of a part overstates every strategy]";
  } catch (const Error&) {
  }
  return "";
}

// The space beast measured whole for one (device, problem, template).
RecordedSpace FromDatabase(const ReplayArgs& a) {
  results_db::Store store = results_db::Store::OpenExisting(a.db);
  results_db::QueryFilter filter;
  filter.device_name = ResolveDevice(store, a.device);
  filter.problem_key = ProblemFilterKey(a.problem);
  filter.template_name = a.template_name;
  RecordedSpace space;
  space.source =
      a.db + " (" + *filter.device_name + ", " + *filter.problem_key + ", " + a.template_name + ")";
  // A device name may span drivers and backends (a device row each, whose
  // timings are not to be mixed), and a template may have been edited and
  // tuned again: the space is what the newest measurement's device row
  // measured of its template version, one measurement per config (else a
  // config would be two points, or two versions' parameters would mix).
  // Newest by run, since --retry-failed measures a row again in place.
  const std::vector<results_db::ResultRow> rows = store.Query(filter);
  const results_db::ResultRow* newest = nullptr;
  for (const results_db::ResultRow& row : rows) {
    if (!newest || std::make_pair(row.run_id, row.measurement_id) >
                       std::make_pair(newest->run_id, newest->measurement_id))
      newest = &row;
  }
  auto kept = [&](const results_db::ResultRow& row) {
    return row.device_id == newest->device_id && row.template_hash == newest->template_hash;
  };
  const size_t left_out = static_cast<size_t>(
      std::count_if(rows.begin(), rows.end(), [&](const auto& row) { return !kept(row); }));
  if (left_out > 0)
    space.source += " [" + std::to_string(left_out) +
                    " measurements of other drivers, backends or template versions left out]";
  for (const results_db::ResultRow& row : rows) {
    if (!kept(row)) continue;
    Trial t;
    t.config = Config::ParseKey(row.config_key);
    t.status = row.status;
    if (row.status == Status::kOk) t.ms = row.median_ms;
    if (space.names.empty()) space.names = t.config.names();
    space.configs.push_back(t.config);
    space.outcomes.push_back(std::move(t));
  }
  if (space.configs.empty())
    throw Error(ErrorCode::kNotFound, space.source + ": no measurement to replay");
  space.source += Coverage(store, *newest, space.configs.size());
  return space;
}

// The trials of each --transfer cache whose configs are points of `space`,
// one history per cache: at most kMaxTransferTrialsPerGroup of them, as beast
// tune keeps of an earlier tuning, a fixed uniform sample (a cache lists its
// space in an enumeration order, whose first configs are all alike). Throws
// Error(kBadInput) naming a cache whose parameters are not the replayed
// space's, or that holds none of its points.
TransferSet TransferFrom(const std::vector<std::string>& files, const RecordedSpace& replayed,
                         const SearchSpace& space, std::vector<std::string>* sources) {
  TransferSet transfer;
  for (const std::string& file : files) {
    RecordedSpace other = ReadKernelTunerCache(file);
    if (!other.SameParameters(replayed.names)) {
      throw Error(ErrorCode::kBadInput, "--transfer " + other.source + " does not match " +
                                            replayed.source + ": its parameters differ");
    }
    if (other.names != replayed.names) other = other.InOrder(replayed.names);
    const RandomPermutation order(other.outcomes.size(), /*seed=*/0);
    History group;
    for (uint64_t i = 0; i < order.size() && group.size() < kMaxTransferTrialsPerGroup; ++i) {
      Trial& t = other.outcomes[order(i)];
      if (space.IndexOf(t.config)) group.push_back(std::move(t));
    }
    if (group.empty()) {
      throw Error(ErrorCode::kBadInput,
                  "--transfer " + other.source + " holds no config of the space replayed");
    }
    sources->push_back(other.source);
    transfer.groups.push_back(std::move(group));
  }
  return transfer;
}

nlohmann::ordered_json ResultJson(const std::string& source, uint64_t configs,
                                  const ReplaySettings& settings, const ReplayResult& r,
                                  const std::vector<std::string>& transfer_sources) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const ReplayRun& run : r.runs) {
    runs.push_back({{"seed", run.seed},
                    {"best_ms", run.best_ms},
                    {"fraction", run.fraction},
                    {"evaluations", run.evaluations}});
  }
  nlohmann::ordered_json out = {{"source", source},
                                {"strategy", r.strategy},
                                {"budget", r.budget},
                                {"lead", settings.lead},
                                {"configs", configs},
                                {"optimum_ms", r.optimum_ms},
                                {"runs", runs},
                                {"mean_fraction", r.mean_fraction},
                                {"median_fraction", r.median_fraction},
                                {"seconds", r.seconds}};
  if (settings.workers > 0) {
    nlohmann::ordered_json at = nlohmann::ordered_json::array();
    for (size_t i = 0; i < settings.at_seconds.size(); ++i) {
      at.push_back({{"seconds", settings.at_seconds[i]},
                    {"mean_fraction", r.mean_fraction_at[i]},
                    {"mean_configs", r.mean_evaluations_at[i]}});
    }
    out["workers"] = settings.workers;
    out["at"] = at;
  }
  if (!transfer_sources.empty()) out["transfer"] = transfer_sources;
  return out;
}

double StandardError(const ReplayResult& r) {
  if (r.runs.size() < 2) return 0;
  double sum = 0;
  for (const ReplayRun& run : r.runs)
    sum += (run.fraction - r.mean_fraction) * (run.fraction - r.mean_fraction);
  return std::sqrt(sum / static_cast<double>(r.runs.size() - 1) /
                   static_cast<double>(r.runs.size()));
}

void PrintTable(const std::string& source, uint64_t configs, double optimum,
                const std::vector<std::string>& strategies, const std::vector<size_t>& budgets,
                const std::vector<std::vector<ReplayResult>>& results, size_t repeats) {
  std::printf(
      "%s: %llu configs, optimum %.6g ms; mean fraction of the optimum over %zu seeds "
      "(± standard error)\n",
      source.c_str(), static_cast<unsigned long long>(configs), optimum, repeats);
  std::printf("%8s", "budget");
  for (const std::string& s : strategies) std::printf(" %16s", s.c_str());
  std::printf("\n");
  for (size_t b = 0; b < budgets.size(); ++b) {
    std::printf("%8zu", budgets[b]);
    for (size_t s = 0; s < strategies.size(); ++s) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%.3f ± %.3f", results[s][b].mean_fraction,
                    StandardError(results[s][b]));
      std::printf(" %16s", cell);
    }
    std::printf("\n");
  }
  double seconds = 0;
  for (const auto& row : results)
    for (const ReplayResult& r : row) seconds += r.seconds;
  std::printf("%.2f s of strategy time in all\n", seconds);
}

// The simulated wall clock: per budget and time, each strategy's mean
// fraction and the configs it had measured by then.
void PrintClockTable(const std::vector<std::string>& strategies, const std::vector<size_t>& budgets,
                     const std::vector<std::vector<ReplayResult>>& results,
                     const std::vector<double>& at_seconds, int workers, size_t lead) {
  std::printf("simulated wall clock: %d compile workers, lead %zu; mean fraction (configs)\n",
              workers, lead);
  std::printf("%8s %8s", "budget", "seconds");
  for (const std::string& s : strategies) std::printf(" %16s", s.c_str());
  std::printf("\n");
  for (size_t b = 0; b < budgets.size(); ++b) {
    for (size_t t = 0; t < at_seconds.size(); ++t) {
      std::printf("%8zu %8g", budgets[b], at_seconds[t]);
      for (size_t s = 0; s < strategies.size(); ++s) {
        char cell[64];
        std::snprintf(cell, sizeof cell, "%.3f (%.0f)", results[s][b].mean_fraction_at[t],
                      results[s][b].mean_evaluations_at[t]);
        std::printf(" %16s", cell);
      }
      std::printf("\n");
    }
  }
}

}  // namespace

int Replay(const Argv& argv) {
  VerbApp app("replay", "Judge a search strategy offline against a recorded space.", Details());
  ReplayArgs a;
  app.add_option("--kernel-tuner", a.kernel_tuner, "a Kernel Tuner cache file");
  app.add_option("--t1", a.t1, "the T1 tuning problem whose space to replay");
  app.add_option("--db", a.db, "a beast database");
  app.add_option("--device", a.device, "with --db: a device name (or a unique part of one)");
  app.add_option("--problem", a.problem, "with --db: the problem");
  app.add_option("--template", a.template_name, "with --db: the template");
  app.add_option("--strategy", a.strategy, "the strategy (default: model)");
  app.add_option("--compare", a.compare, "strategies side by side, e.g. random,model");
  AddInteger(app, "--budget", &a.budget, "configs per run, failures included (default 100)");
  app.add_option("--budgets", a.budgets, "several budgets, e.g. 20,50,100,200");
  AddInteger(app, "--repeats", &a.repeats, "runs, seeds S..S+R-1 (default 20)");
  AddInteger(app, "--seed", &a.seed, "the first seed (default 0)");
  AddInteger(app, "--workers", &a.workers,
             "simulate this many compile workers from the recorded costs (default: none)");
  app.add_option("--at", a.at, "with --workers: seconds of wall clock to report, e.g. 60,120");
  AddInteger(app, "--lead", &a.lead,
             "proposed configs left unmeasured when the next batch is proposed (default 2)");
  app.add_option("--transfer", a.transfer,
                 "a Kernel Tuner cache of the same kernel to learn from first (repeatable)");
  app.add_flag("--json", a.json, "print JSON");
  if (!ParseCommandLine(app, argv)) return 0;
  if (Given(app, "--kernel-tuner") == Given(app, "--db"))
    throw Error(ErrorCode::kBadArgument, "give --kernel-tuner FILE or --db FILE (one of them)");
  if (Given(app, "--db") && (a.device.empty() || a.problem.empty() || a.template_name.empty()))
    throw Error(ErrorCode::kBadArgument, "--db needs --device, --problem and --template");
  if (a.repeats < 1) throw Error(ErrorCode::kBadArgument, "--repeats must be at least 1");
  if (a.lead < 0) throw Error(ErrorCode::kBadArgument, "--lead must be at least 0");
  if (Given(app, "--workers") && (a.workers < 1 || a.workers > 4096))
    throw Error(ErrorCode::kBadArgument, "--workers must be between 1 and 4096");
  if (Given(app, "--at") != Given(app, "--workers"))
    throw Error(ErrorCode::kBadArgument, "--at and --workers go together");
  std::vector<double> at_seconds;
  for (const std::string& t : Split(a.at)) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (*end || !(v > 0))
      throw Error(ErrorCode::kBadArgument, "--at takes positive seconds, not \"" + t + "\"");
    at_seconds.push_back(v);
  }
  if (Given(app, "--at") && at_seconds.empty())
    throw Error(ErrorCode::kBadArgument, "--at takes at least one time in seconds");
  const std::vector<std::string> strategies =
      Given(app, "--compare") ? Split(a.compare) : std::vector<std::string>{a.strategy};
  if (strategies.empty())
    throw Error(ErrorCode::kBadArgument, "--compare takes at least one strategy");
  if (a.seed < 0) throw Error(ErrorCode::kBadArgument, "--seed must not be negative");
  for (const std::string& s : strategies) MakeStrategy(s, 0);  // an unknown name: one line
  const std::vector<size_t> budgets = Budgets(app, a);

  RecordedSpace recorded =
      Given(app, "--db") ? FromDatabase(a) : ReadKernelTunerCache(a.kernel_tuner);
  recorded.OptimumMs();  // a cache where nothing ran ok cannot be replayed
  const ListedSearchSpace listed = recorded.Space();
  std::unique_ptr<SpaceSpec> t1_spec;
  std::unique_ptr<BoundSpace> t1_space;
  std::unique_ptr<BoundSearchSpace> t1_search;
  const SearchSpace* space = &listed;
  if (Given(app, "--t1")) {
    t1_spec = std::make_unique<SpaceSpec>(LoadT1(a.t1));
    t1_space =
        std::make_unique<BoundSpace>(*t1_spec, std::vector<std::pair<std::string, int64_t>>{});
    t1_search = std::make_unique<BoundSearchSpace>(*t1_space);
    if (!recorded.SameParameters(t1_search->names())) {
      throw Error(ErrorCode::kBadInput,
                  a.t1 + " does not match " + recorded.source + ": its parameters differ");
    }
    // The T1 file's order of the parameters is the space's.
    if (t1_search->names() != recorded.names) recorded = recorded.InOrder(t1_search->names());
    space = t1_search.get();
  }
  // The optimum of the space replayed, which a T1 file may make a part of
  // the cache's; every point of it must be recorded.
  const double optimum_ms = SpaceOptimumMs(recorded, *space);
  for (size_t b : budgets) {
    if (b > space->Size()) {
      throw Error(ErrorCode::kBadArgument, "a budget of " + std::to_string(b) +
                                               " is above the space's " +
                                               std::to_string(space->Size()) + " configs");
    }
  }
  std::vector<std::string> transfer_sources;
  const TransferSet transfer = TransferFrom(a.transfer, recorded, *space, &transfer_sources);
  std::vector<std::vector<ReplayResult>> results;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& s : strategies) {
    results.emplace_back();
    for (size_t b : budgets) {
      ReplaySettings settings;
      settings.budget = b;
      settings.seed = static_cast<uint64_t>(a.seed);
      settings.repeats = static_cast<size_t>(a.repeats);
      settings.lead = static_cast<size_t>(a.lead);
      settings.workers = static_cast<int>(a.workers);
      settings.optimum_ms = optimum_ms;
      settings.at_seconds = at_seconds;
      if (!transfer.groups.empty()) settings.transfer = &transfer;
      results.back().push_back(beast::Replay(recorded, *space, s, settings));
      all.push_back(ResultJson(recorded.source, space->Size(), settings, results.back().back(),
                               transfer_sources));
    }
  }
  if (a.json) {
    std::printf("%s\n", JsonText(all.size() == 1 ? all[0] : all).c_str());
  } else {
    PrintTable(recorded.source, space->Size(), optimum_ms, strategies, budgets, results,
               static_cast<size_t>(a.repeats));
    for (const std::string& source : transfer_sources)
      std::printf("transfer: given to the strategies: %s\n", source.c_str());
    if (!at_seconds.empty())
      PrintClockTable(strategies, budgets, results, at_seconds, static_cast<int>(a.workers),
                      static_cast<size_t>(a.lead));
  }
  return 0;
}

}  // namespace beast::cli
