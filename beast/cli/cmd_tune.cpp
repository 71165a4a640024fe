// beast tune: tunes templates on problems on one device into a database,
// with a progress line and a table of winners at the end.
#include <cstdio>

#include "args.hpp"
#include "beast/device_resolver.hpp"
#include "beast/error.hpp"
#include "beast/tuner.hpp"
#include "beast/user_constraints.hpp"
#include "verbs.hpp"

namespace beast::cli {
namespace {

const char kHelp[] =
    "usage: beast tune --template T [--template T2 ...] --problem P [--problem P2 ...]\n"
    "                  [--device D] [--db FILE] [--max-configs N] [--seed S]\n"
    "                  [--constraint EXPR]... [--constraints FILE]... [--ignore-soft]\n"
    "                  [--max-reps N] [--max-seconds S] [--quiet]\n"
    "Measures the configs of each template on each problem of its op on device D\n"
    "(default: the first OpenCL device) and records every outcome in FILE (default beast.db).\n"
    "--max-configs N measures the default config plus a uniform sample (seed S) of the\n"
    "valid space; 0 (the default) measures it all. Configs already in the database for\n"
    "this device, problem and template version are skipped, so a rerun resumes.\n";

}  // namespace

int Tune(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv, {"template", "problem", "device", "db", "max-configs", "seed", "constraint", "constraints",
                   "templates", "max-reps", "max-seconds"},
            {"ignore-soft", "quiet"}, "tune");
  if (!args.positional().empty()) {
    throw Error(ErrorCode::kBadArgument, "beast tune: unexpected argument \"" + args.positional()[0] + "\"");
  }
  TuneOptions o;
  o.templates = args.GetAll("template");
  if (o.templates.empty()) throw Error(ErrorCode::kBadArgument, "beast tune: --template is required");
  for (const auto& p : args.GetAll("problem")) o.problems.push_back(Problem::Parse(p));
  if (o.problems.empty()) throw Error(ErrorCode::kBadArgument, "beast tune: --problem is required");
  o.device = args.Has("device") ? DeviceSelector::Parse(args.Get("device")) : BestDevice();
  o.db_path = args.Get("db", "beast.db");
  o.templates_dir = args.Get("templates", "");
  long max_configs = args.GetInt("max-configs", 0);
  if (max_configs < 0) throw Error(ErrorCode::kBadArgument, "beast tune: --max-configs must not be negative");
  o.max_configs = static_cast<uint64_t>(max_configs);
  o.seed = static_cast<uint64_t>(args.GetInt("seed", 1));
  o.bind.ignore_soft = args.Has("ignore-soft");
  for (const auto& text : args.GetAll("constraint")) o.bind.extra.push_back(ParseUserConstraint(text));
  for (const auto& file : args.GetAll("constraints")) {
    for (auto& c : LoadConstraintFile(file)) o.bind.extra.push_back(c);
  }
  o.max_reps = static_cast<int>(args.GetInt("max-reps", o.max_reps));
  if (o.max_reps < o.min_reps) o.min_reps = o.max_reps < 1 ? 1 : o.max_reps;
  if (o.max_reps < 1) throw Error(ErrorCode::kBadArgument, "beast tune: --max-reps must be at least 1");
  if (args.Has("max-seconds")) o.max_seconds_per_config = std::stod(args.Get("max-seconds"));
  o.progress = !args.Has("quiet");
  o.command_line = "beast tune";
  for (const auto& a : argv) o.command_line += " " + a;
  TuneSummary summary = Tune(o);
  std::fputs(FormatTuneSummary(summary).c_str(), stdout);
  return summary.interrupted ? 130 : 0;
}

}  // namespace beast::cli
