// beast query: reads measurements from a database, as a table, JSON or CSV:
// every row, the best or top-k per device, problem and template, filtered by
// device, problem, template, status and parameter values (all bound, never
// pasted into SQL), with the speed-up over the default config and over each
// vendor library's baseline and the compiled kernel's resources where known;
// or two devices compared on their common problems.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "beast/cli/command_line.hpp"
#include "beast/cli/device_name.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/query_job.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/core/error.hpp"
#include "beast/problem/problem.hpp"
#include "results_db/store.hpp"

namespace beast::cli {
namespace {

const char kDetails[] =
    "Lists measurements (default database beast.db), best first per device, problem and\n"
    "template. --best keeps the best ok config of each, --top K the K best, with the speed-up\n"
    "over the template's default config; --fastest keeps the fastest of each problem over\n"
    "every template: which algorithm (direct, implicit GEMM, Winograd) won. A time is the\n"
    "whole convolution, except a config's prepare stages (conv2d/winograd_split's filter\n"
    "transform, which the exported library runs once per weight buffer in\n"
    "beast_conv2d_prepare): their time is prepare_ms, shown apart and not in the median.\n"
    "The fused conv2d/winograd transforms the filters inside its kernel, timed.\n"
    "Where a vendor library's baseline was measured on the same device and problem, a\n"
    "column \"vs LIBRARY\" gives its fastest ok time divided\n"
    "by the row's time. The compiled kernel's resources (registers, spill, stack and\n"
    "shared/local memory bytes) show where the backend reported them: always in --json\n"
    "(null when unknown), as columns in --csv and a line per row in the table when any\n"
    "row has one. Where the top configs of a pair were re-measured side by side at the end\n"
    "of its tuning (beast tune --confirm-top), the fastest of that re-measurement is the\n"
    "best, and each row that took part shows its re-measured median (confirmed_ms).\n"
    "--compare A B lists the problems both devices measured ok: the best of each and the\n"
    "ratio A's time / B's time (above 1: B is faster); a name of several drivers or backends\n"
    "is compared by the one measured last (stderr says so).\n"
    "--problems FILE (a batch job's file, as beast tune --problems reads it) shows the job\n"
    "per device: each problem's weight, best time over its templates, speed-up over the\n"
    "default config and over the fastest library, configs measured, and the weighted sums\n"
    "of the best and the library's times (--device picks one device; --json).\n";

// A number as CSV writes it: the shortest digits that read back exactly.
std::string Number(double v) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

std::string Opt(const std::optional<double>& v) { return v ? Number(*v) : ""; }
std::string OptInt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : ""; }

// An optional value as JSON: null when unset.
template <typename T>
nlohmann::ordered_json OrNull(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

bool HasResources(const results_db::ResultRow& r) {
  return r.registers || r.spill_bytes || r.stack_bytes || r.shared_bytes;
}

// "registers 40, spills 0 B, stack 16 B, shared 8192 B", the known ones only.
std::string ResourcesText(const results_db::ResultRow& r) {
  std::string text;
  auto add = [&](const char* name, const std::optional<int64_t>& v, const char* unit) {
    if (v) text += (text.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(*v) + unit;
  };
  add("registers", r.registers, "");
  add("spills", r.spill_bytes, " B");
  add("stack", r.stack_bytes, " B");
  add("shared", r.shared_bytes, " B");
  return text;
}

std::string Ratio(const std::optional<double>& v) {
  if (!v) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.3fx", *v);
  return text;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// The libraries with a baseline on any row, in name order: one column each.
std::vector<std::string> BaselineLibraries(const std::vector<results_db::ResultRow>& rows) {
  std::set<std::string> names;
  for (const auto& r : rows)
    for (const auto& b : r.baselines) names.insert(b.library);
  return {names.begin(), names.end()};
}

// The row's speed-up over `library`, if it has one.
std::optional<double> VsLibrary(const results_db::ResultRow& r, const std::string& library) {
  for (const auto& b : r.baselines)
    if (b.library == library) return b.speedup;
  return std::nullopt;
}

results_db::ParamMatch ParseWhere(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw Error(ErrorCode::kBadArgument, "--where takes PARAM=VALUE, not '" + text + "'");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Every --where names a parameter that configs of the chosen template have.
void CheckParameters(results_db::Store& store, const results_db::QueryFilter& filter) {
  if (filter.params.empty()) return;
  std::vector<std::string> known = store.ParameterNames(filter.template_name);
  std::set<std::string> names(known.begin(), known.end());
  for (const auto& match : filter.params) {
    if (names.count(match.name)) continue;
    std::string scope = filter.template_name ? "configs of " + *filter.template_name : "configs";
    throw Error(ErrorCode::kNotFound,
                "unknown parameter '" + match.name + "' (the " + scope + " in " + store.path() +
                    " have " + (known.empty() ? std::string("none") : Joined(known)) + ")");
  }
}

nlohmann::ordered_json RowJson(const results_db::ResultRow& r) {
  nlohmann::ordered_json baselines = nlohmann::ordered_json::array();
  for (const auto& b : r.baselines) {
    baselines.push_back({{"library", b.library},
                         {"routine", b.routine},
                         {"median_ms", b.median_ms},
                         {"speedup", OrNull(b.speedup)}});
  }
  return {{"device", r.device_name},
          {"backend", r.backend},
          {"problem", r.problem_key},
          {"template", r.template_name},
          {"config", r.config_key},
          {"params", nlohmann::ordered_json::parse(r.params_json, nullptr, false)},
          {"status", StatusName(r.status)},
          {"is_default", r.is_default},
          {"strategy", r.strategy},
          {"median_ms", OrNull(r.median_ms)},
          {"prepare_ms", OrNull(r.prepare_ms)},
          {"spread", OrNull(r.spread)},
          {"gflops", OrNull(r.gflops)},
          {"max_error", OrNull(r.max_error)},
          {"speedup_vs_default", OrNull(r.speedup_vs_default)},
          {"speedup_basis",
           r.speedup_vs_default
               ? nlohmann::ordered_json(r.speedup_from_confirmed ? "confirmed" : "median")
               : nlohmann::ordered_json(nullptr)},
          {"confirmed_ms", OrNull(r.confirmed_ms)},
          {"compile_ms", OrNull(r.compile_ms)},
          {"registers", OrNull(r.registers)},
          {"spill_bytes", OrNull(r.spill_bytes)},
          {"stack_bytes", OrNull(r.stack_bytes)},
          {"shared_bytes", OrNull(r.shared_bytes)},
          {"error", r.error_text},
          {"baselines", baselines}};
}

void PrintCsv(const std::vector<results_db::ResultRow>& rows,
              const std::vector<std::string>& libraries, bool any_resources) {
  std::string header =
      "device,backend,problem,template,config,status,is_default,median_ms,spread,gflops,max_"
      "error,"
      "speedup_vs_default,strategy";
  if (any_resources) header += ",registers,spill_bytes,stack_bytes,shared_bytes";
  for (const auto& library : libraries) header += "," + CsvField("vs_" + library);
  std::printf("%s\n", header.c_str());
  for (const auto& r : rows) {
    std::string vs;
    if (any_resources) {
      vs += "," + OptInt(r.registers) + "," + OptInt(r.spill_bytes) + "," + OptInt(r.stack_bytes) +
            "," + OptInt(r.shared_bytes);
    }
    for (const auto& library : libraries) vs += "," + Opt(VsLibrary(r, library));
    std::printf("%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s%s\n", CsvField(r.device_name).c_str(),
                r.backend.c_str(), CsvField(r.problem_key).c_str(),
                CsvField(r.template_name).c_str(), CsvField(r.config_key).c_str(),
                StatusName(r.status), r.is_default ? 1 : 0, Opt(r.median_ms).c_str(),
                Opt(r.spread).c_str(), Opt(r.gflops).c_str(), Opt(r.max_error).c_str(),
                Opt(r.speedup_vs_default).c_str(), CsvField(r.strategy).c_str(), vs.c_str());
  }
}

void PrintTable(const std::vector<results_db::ResultRow>& rows,
                const std::vector<std::string>& libraries) {
  std::string vs_header;
  for (const auto& library : libraries) {
    char column[64];
    std::snprintf(column, sizeof column, " %12s", ("vs " + library).c_str());
    vs_header += column;
  }
  std::printf("%-20s %-14s %11s %9s %8s%s %-10s  %s\n", "template", "status", "median ms",
              "GFLOP/s", "speedup", vs_header.c_str(), "chosen by", "config / device / problem");
  const int indent = 77 + 13 * static_cast<int>(libraries.size());
  for (const auto& r : rows) {
    std::string vs;
    for (const auto& library : libraries) {
      char column[64];
      std::snprintf(column, sizeof column, " %12s", Ratio(VsLibrary(r, library)).c_str());
      vs += column;
    }
    char median[32] = "-", gflops[32] = "-";
    if (r.median_ms) std::snprintf(median, sizeof median, "%.6f", *r.median_ms);
    if (r.gflops) std::snprintf(gflops, sizeof gflops, "%.2f", *r.gflops);
    // What chose the config: its strategy; a measurement from before
    // strategies were recorded says only whether it was the default.
    const std::string chosen_by = !r.strategy.empty() ? r.strategy : r.is_default ? "default" : "";
    std::printf("%-20s %-14s %11s %9s %8s%s %-10s  %s\n%*s  %s\n%*s  %s\n", r.template_name.c_str(),
                StatusName(r.status), median, gflops, Ratio(r.speedup_vs_default).c_str(),
                vs.c_str(), chosen_by.c_str(), r.config_key.c_str(), indent, "",
                r.device_name.c_str(), indent, "", r.problem_key.c_str());
    if (HasResources(r)) std::printf("%*s  %s\n", indent, "", ResourcesText(r).c_str());
    if (r.prepare_ms) {
      std::printf(
          "%*s  prepare: %.6f ms once per weight buffer (the weights' transform, "
          "beast_conv2d_prepare), not in the median\n",
          indent, "", *r.prepare_ms);
    }
    if (r.confirmed_ms) {
      std::printf("%*s  confirmed: %.6f ms re-measured beside the pair's other top configs%s\n",
                  indent, "", *r.confirmed_ms,
                  r.speedup_from_confirmed
                      ? "; the speedup compares this with the default's confirmed median"
                      : "");
    }
  }
  std::printf("%zu rows\n", rows.size());
}

void PrintRows(const std::vector<results_db::ResultRow>& rows, bool json, bool csv) {
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : rows) out.push_back(RowJson(r));
    std::printf("%s\n", JsonText(out).c_str());
    return;
  }
  const std::vector<std::string> libraries = BaselineLibraries(rows);
  bool any_resources = false;
  for (const auto& r : rows) any_resources = any_resources || HasResources(r);
  if (csv) {
    PrintCsv(rows, libraries, any_resources);
  } else {
    PrintTable(rows, libraries);
  }
}

void PrintComparison(const std::vector<results_db::ComparisonRow>& rows, const std::string& a,
                     const std::string& b, bool json, bool csv) {
  auto side = [](const results_db::ComparedBest& s) {
    return nlohmann::ordered_json{{"device", s.device_name},
                                  {"template", s.template_name},
                                  {"config", s.config_key},
                                  {"median_ms", s.median_ms},
                                  {"gflops", OrNull(s.gflops)}};
  };
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      out.push_back(
          {{"problem", r.problem_key}, {"a", side(r.a)}, {"b", side(r.b)}, {"ratio", r.ratio}});
    }
    std::printf("%s\n", JsonText(out).c_str());
    return;
  }
  if (csv) {
    std::printf(
        "problem,device_a,template_a,config_a,median_ms_a,device_b,template_b,config_b,median_ms_b,"
        "ratio\n");
    for (const auto& r : rows) {
      std::printf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", CsvField(r.problem_key).c_str(),
                  CsvField(r.a.device_name).c_str(), CsvField(r.a.template_name).c_str(),
                  CsvField(r.a.config_key).c_str(), Number(r.a.median_ms).c_str(),
                  CsvField(r.b.device_name).c_str(), CsvField(r.b.template_name).c_str(),
                  CsvField(r.b.config_key).c_str(), Number(r.b.median_ms).c_str(),
                  Number(r.ratio).c_str());
    }
    return;
  }
  std::printf("A = %s, B = %s; ratio = A's best time / B's (above 1: B is faster)\n", a.c_str(),
              b.c_str());
  std::printf("%12s %12s %8s  %s\n", "A ms", "B ms", "ratio", "problem / A's best / B's best");
  for (const auto& r : rows) {
    std::printf("%12.6f %12.6f %8.3f  %s\n%34s  A: %s %s\n%34s  B: %s %s\n", r.a.median_ms,
                r.b.median_ms, r.ratio, r.problem_key.c_str(), "", r.a.template_name.c_str(),
                r.a.config_key.c_str(), "", r.b.template_name.c_str(), r.b.config_key.c_str());
  }
  std::printf("%zu common problems\n", rows.size());
}

// The command line of beast query.
struct QueryArgs {
  std::string db = "beast.db", device, problem, problems, template_name, status;
  std::vector<std::string> where, compare, positional;
  long top = 0, limit = 0;
  bool best = false, fastest = false, json = false, csv = false;
};

// Of --best's rows (each template's best per device and problem), the
// fastest per device and problem: which template, which algorithm, won.
std::vector<results_db::ResultRow> FastestPerProblem(std::vector<results_db::ResultRow> rows) {
  std::vector<results_db::ResultRow> out;
  for (results_db::ResultRow& row : rows) {
    if (!row.median_ms) continue;
    auto same = std::find_if(out.begin(), out.end(), [&](const results_db::ResultRow& o) {
      return o.device_id == row.device_id && o.problem_key == row.problem_key;
    });
    if (same == out.end()) {
      out.push_back(std::move(row));
    } else if (*row.median_ms < *same->median_ms) {
      *same = std::move(row);
    }
  }
  return out;
}

void CheckCombinations(const CLI::App& app, const QueryArgs& args) {
  if (Given(app, "--compare")) {
    for (const char* other : {"--device", "--status", "--top", "--best", "--limit"}) {
      if (Given(app, other)) {
        throw Error(ErrorCode::kBadArgument,
                    std::string("--compare compares best ok configs; drop ") + other);
      }
    }
  }
  if (Given(app, "--problems")) {
    for (const char* other : {"--compare", "--problem", "--template", "--status", "--top", "--best",
                              "--where", "--limit", "--csv"}) {
      if (Given(app, other)) {
        throw Error(ErrorCode::kBadArgument,
                    std::string("--problems shows a job's best times; drop ") + other);
      }
    }
  }
  if (!args.positional.empty())
    throw Error(ErrorCode::kBadArgument, "unexpected argument '" + args.positional[0] + "'");
  if (args.json && args.csv) throw Error(ErrorCode::kBadArgument, "--json or --csv, not both");
  if (args.best && Given(app, "--top"))
    throw Error(ErrorCode::kBadArgument, "--best is --top 1; give one of them");
  if (args.fastest && (args.best || Given(app, "--top") || Given(app, "--template")))
    throw Error(ErrorCode::kBadArgument,
                "--fastest is the best over every template; drop --best, --top and --template");
}

std::optional<Status> ParseMeasurementStatus(const std::string& name) {
  std::optional<Status> status = ParseStatus(name);
  if (status && IsMeasurementStatus(*status)) return status;
  std::vector<std::string> statuses;
  for (Status s : kAllStatuses) {
    if (IsMeasurementStatus(s)) statuses.push_back(StatusName(s));
  }
  throw Error(ErrorCode::kBadArgument,
              "unknown status '" + name + "' (one of " + Joined(statuses) + ")");
}

// The database's key for --problem: a key it holds as given (an imported
// one such as kt:convolution_kernel:4096x4096 included), else the canonical
// form of a beast problem in another spelling.
std::string ResolveProblem(results_db::Store& store, const std::string& text) {
  const std::vector<std::string> keys = store.ProblemKeys();
  if (std::find(keys.begin(), keys.end(), text) != keys.end()) return text;
  std::string key;
  try {
    key = Problem::Parse(text).Key();
  } catch (const Error& e) {
    throw Error(ErrorCode::kNotFound, "no problem '" + text + "' in " + store.path() +
                                          ", and it is not a problem key beast reads (" + e.what() +
                                          ")");
  }
  return key;  // a problem not in the database: no rows, as for any filter
}

// --template must name a template the database has measured.
std::string ResolveTemplate(results_db::Store& store, const std::string& name) {
  const std::vector<std::string> names = store.TemplateNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  throw Error(ErrorCode::kNotFound,
              "no template '" + name + "' in " + store.path() +
                  " (templates: " + (names.empty() ? std::string("none") : Joined(names)) + ")");
}

}  // namespace

int Query(const Argv& argv) {
  VerbApp app("query", "Read results from a database.", kDetails);
  QueryArgs args;
  app.add_option("--db", args.db, "the database (default beast.db)");
  app.add_flag("--best", args.best, "the best ok config per device, problem and template");
  app.add_flag("--fastest", args.fastest,
               "the fastest ok config per device and problem, over every template (which "
               "algorithm won)");
  AddInteger(app, "--top", &args.top, "the K best ok configs of each");
  app.add_option("--device", args.device, "a device name, or a unique part of one");
  app.add_option("--problem", args.problem, "a problem key");
  app.add_option("--problems", args.problems,
                 "a batch job's file: its view per device (weights, best times, sums)");
  app.add_option("--template", args.template_name, "a template name");
  app.add_option("--status", args.status, "a measurement status");
  AddRepeated(app, "--where", &args.where,
              "PARAM=VALUE: configs whose parameter has VALUE (repeatable: all must hold)");
  AddInteger(app, "--limit", &args.limit, "at most N rows");
  app.add_option("--compare", args.compare, "DEVICE_A DEVICE_B: two devices compared")
      ->expected(0, 2)
      ->allow_extra_args(false);
  app.add_flag("--json", args.json, "print JSON");
  app.add_flag("--csv", args.csv, "print CSV");
  if (!ParseCommandLine(app, argv, &args.positional)) return 0;
  // --compare A B: the second device may come as the next argument.
  if (Given(app, "--compare") && args.compare.size() == 1 && args.positional.size() == 1) {
    args.compare.push_back(args.positional.front());
    args.positional.clear();
  }
  if (Given(app, "--compare") && args.compare.size() != 2) {
    throw Error(ErrorCode::kBadArgument,
                "--compare takes two devices: --compare DEVICE_A DEVICE_B");
  }
  CheckCombinations(app, args);
  results_db::QueryFilter filter;
  if (Given(app, "--status")) filter.status = ParseMeasurementStatus(args.status);
  if (Given(app, "--top")) {
    filter.top_k = args.top;
    if (filter.top_k < 1) throw Error(ErrorCode::kBadArgument, "--top takes a positive number");
  }
  filter.limit = args.limit;
  if (filter.limit < 0) throw Error(ErrorCode::kBadArgument, "--limit takes a positive number");
  filter.best_only = args.best || args.fastest;
  for (const auto& where : args.where) filter.params.push_back(ParseWhere(where));

  if (Given(app, "--problems")) {
    // Read before the database, so a bad line is one error FILE:LINE.
    const std::vector<JobProblem> job = ReadJobFile(args.problems);
    results_db::Store store = results_db::Store::OpenExisting(args.db);
    PrintJob(store, job, Given(app, "--device") ? ResolveDevice(store, args.device) : "",
             args.json);
    return 0;
  }
  results_db::Store store = results_db::Store::OpenExisting(args.db);
  if (Given(app, "--problem")) filter.problem_key = ResolveProblem(store, args.problem);
  if (Given(app, "--template")) filter.template_name = ResolveTemplate(store, args.template_name);
  CheckParameters(store, filter);
  if (Given(app, "--compare")) {
    const std::string a = ResolveDevice(store, args.compare[0]);
    const std::string b = ResolveDevice(store, args.compare[1]);
    const std::vector<results_db::ComparisonRow> rows = store.Compare(a, b, filter);
    // A name of several device rows is compared by one of them: say which.
    const std::vector<results_db::DeviceRow> devices = store.Devices();
    for (bool first : {true, false}) {
      const std::string& name = first ? a : b;
      const auto same = std::count_if(devices.begin(), devices.end(),
                                      [&](const auto& d) { return d.name == name; });
      if (same < 2 || rows.empty()) continue;
      const int64_t id = first ? rows[0].a.device_id : rows[0].b.device_id;
      for (const results_db::DeviceRow& d : devices) {
        if (d.device_id != id) continue;
        std::fprintf(stderr,
                     "beast query: %s has results of %ld drivers or backends, not mixed: "
                     "compared are those of %s driver %s, its newest\n",
                     name.c_str(), static_cast<long>(same), d.backend.c_str(),
                     d.driver_version.c_str());
      }
    }
    PrintComparison(rows, a, b, args.json, args.csv);
    return 0;
  }
  if (Given(app, "--device")) filter.device_name = ResolveDevice(store, args.device);
  if (!args.fastest) {
    PrintRows(store.Query(filter), args.json, args.csv);
    return 0;
  }
  // --limit counts problems' winners: every template's best is read first,
  // or a problem's fastest template could be cut before it is compared.
  filter.limit = 0;
  std::vector<results_db::ResultRow> fastest = FastestPerProblem(store.Query(filter));
  if (args.limit > 0 && fastest.size() > static_cast<size_t>(args.limit))
    fastest.resize(args.limit);
  PrintRows(fastest, args.json, args.csv);
  return 0;
}

}  // namespace beast::cli
