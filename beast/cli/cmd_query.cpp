// beast query: reads measurements from a database, as a table, JSON or CSV:
// every row, the best or top-k per device, problem and template, filtered by
// device, problem, template, status and parameter values (all bound, never
// pasted into SQL), with the speed-up over the default config and over each
// vendor library's baseline and the compiled kernel's resources where known;
// or two devices compared on their common problems.
#include <cstdio>
#include <set>

#include "beast/cli/args.hpp"
#include "beast/core/error.hpp"
#include "beast/core/json.hpp"
#include "beast/problem/problem.hpp"
#include "beast/cli/device_name.hpp"
#include "results_db/store.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {
namespace {

const char kHelp[] =
    "usage: beast query [--db FILE] [--best | --top K] [--device D] [--problem P] [--template T]\n"
    "                   [--status S] [--where PARAM=VALUE]... [--limit N] [--json | --csv]\n"
    "       beast query [--db FILE] --compare DEVICE_A DEVICE_B [--problem P] [--template T]\n"
    "                   [--where PARAM=VALUE]... [--json | --csv]\n"
    "Lists measurements (default database beast.db), best first per device, problem and\n"
    "template. --best keeps the best ok config of each, --top K the K best, with the speed-up\n"
    "over the template's default config. Where a vendor library's baseline was measured on\n"
    "the same device and problem, a column \"vs LIBRARY\" gives its fastest ok time divided\n"
    "by the row's time. The compiled kernel's resources (registers, spill, stack and\n"
    "shared/local memory bytes) show where the backend reported them: always in --json\n"
    "(null when unknown), as columns in --csv and a line per row in the table when any\n"
    "row has one. Where the top configs of a pair were re-measured side by side at the end\n"
    "of its tuning (beast tune --confirm-top), the fastest of that re-measurement is the\n"
    "best, and each row that took part shows its re-measured median (confirmed_ms).\n"
    "  --device D          a device name as `beast query` shows it (or a unique part of it)\n"
    "  --where PARAM=VALUE configs whose parameter PARAM has VALUE (repeatable: all must hold)\n"
    "  --compare A B       the problems both devices measured ok: the best of each and\n"
    "                      the ratio A's time / B's time (above 1: B is faster)\n";

std::string Opt(const std::optional<double>& v) { return v ? JsonNumber(*v) : ""; }
std::string Num(const std::optional<double>& v) { return v ? JsonNumber(*v) : "null"; }
std::string OptInt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : ""; }
std::string Int(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "null"; }

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

void PrintRows(const std::vector<results_db::ResultRow>& rows, bool json, bool csv) {
  const std::vector<std::string> libraries = BaselineLibraries(rows);
  bool any_resources = false;
  for (const auto& r : rows) any_resources = any_resources || HasResources(r);
  if (json) {
    std::string out = "[";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      out += std::string(i ? ",\n " : "") + "{\"device\": " + JsonString(r.device_name) +
             ", \"backend\": " + JsonString(r.backend) +
             ", \"problem\": " + JsonString(r.problem_key) +
             ", \"template\": " + JsonString(r.template_name) +
             ", \"config\": " + JsonString(r.config_key) + ", \"params\": " + r.params_json +
             ", \"status\": " + JsonString(StatusName(r.status)) +
             ", \"is_default\": " + (r.is_default ? "true" : "false") +
             ", \"median_ms\": " + Num(r.median_ms) + ", \"spread\": " + Num(r.spread) +
             ", \"gflops\": " + Num(r.gflops) + ", \"max_error\": " + Num(r.max_error) +
             ", \"speedup_vs_default\": " + Num(r.speedup_vs_default) +
             ", \"confirmed_ms\": " + Num(r.confirmed_ms) +
             ", \"compile_ms\": " + Num(r.compile_ms) + ", \"registers\": " + Int(r.registers) +
             ", \"spill_bytes\": " + Int(r.spill_bytes) +
             ", \"stack_bytes\": " + Int(r.stack_bytes) +
             ", \"shared_bytes\": " + Int(r.shared_bytes) +
             ", \"error\": " + JsonString(r.error_text) + ", \"baselines\": [";
      for (size_t j = 0; j < r.baselines.size(); ++j) {
        const auto& b = r.baselines[j];
        out += std::string(j ? ", " : "") + "{\"library\": " + JsonString(b.library) +
               ", \"routine\": " + JsonString(b.routine) +
               ", \"median_ms\": " + JsonNumber(b.median_ms) + ", \"speedup\": " + Num(b.speedup) +
               "}";
      }
      out += "]}";
    }
    std::printf("%s]\n", out.c_str());
    return;
  }
  if (csv) {
    std::string header =
        "device,backend,problem,template,config,status,is_default,median_ms,spread,gflops,max_"
        "error,"
        "speedup_vs_default";
    if (any_resources) header += ",registers,spill_bytes,stack_bytes,shared_bytes";
    for (const auto& library : libraries) header += "," + CsvField("vs_" + library);
    std::printf("%s\n", header.c_str());
    for (const auto& r : rows) {
      std::string vs;
      if (any_resources) {
        vs += "," + OptInt(r.registers) + "," + OptInt(r.spill_bytes) + "," +
              OptInt(r.stack_bytes) + "," + OptInt(r.shared_bytes);
      }
      for (const auto& library : libraries) vs += "," + Opt(VsLibrary(r, library));
      std::printf("%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s%s\n", CsvField(r.device_name).c_str(),
                  r.backend.c_str(), CsvField(r.problem_key).c_str(),
                  CsvField(r.template_name).c_str(), CsvField(r.config_key).c_str(),
                  StatusName(r.status), r.is_default ? 1 : 0, Opt(r.median_ms).c_str(),
                  Opt(r.spread).c_str(), Opt(r.gflops).c_str(), Opt(r.max_error).c_str(),
                  Opt(r.speedup_vs_default).c_str(), vs.c_str());
    }
    return;
  }
  std::string vs_header;
  for (const auto& library : libraries) {
    char column[64];
    std::snprintf(column, sizeof column, " %12s", ("vs " + library).c_str());
    vs_header += column;
  }
  std::printf("%-20s %-14s %11s %9s %8s%s %-8s  %s\n", "template", "status", "median ms", "GFLOP/s",
              "speedup", vs_header.c_str(), "default", "config / device / problem");
  const int indent = 75 + 13 * static_cast<int>(libraries.size());
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
    std::printf("%-20s %-14s %11s %9s %8s%s %-8s  %s\n%*s  %s\n%*s  %s\n", r.template_name.c_str(),
                StatusName(r.status), median, gflops, Ratio(r.speedup_vs_default).c_str(), vs.c_str(),
                r.is_default ? "default" : "", r.config_key.c_str(), indent, "",
                r.device_name.c_str(), indent, "", r.problem_key.c_str());
    if (HasResources(r)) std::printf("%*s  %s\n", indent, "", ResourcesText(r).c_str());
    if (r.confirmed_ms) {
      std::printf("%*s  confirmed: %.6f ms re-measured beside the pair's other top configs\n",
                  indent, "", *r.confirmed_ms);
    }
  }
  std::printf("%zu rows\n", rows.size());
}

void PrintComparison(const std::vector<results_db::ComparisonRow>& rows, const std::string& a,
                     const std::string& b, bool json, bool csv) {
  auto side = [](const results_db::ComparedBest& s) {
    return "{\"device\": " + JsonString(s.device_name) +
           ", \"template\": " + JsonString(s.template_name) +
           ", \"config\": " + JsonString(s.config_key) +
           ", \"median_ms\": " + JsonNumber(s.median_ms) + ", \"gflops\": " + Num(s.gflops) + "}";
  };
  if (json) {
    std::string out = "[";
    for (size_t i = 0; i < rows.size(); ++i) {
      out += std::string(i ? ",\n " : "") + "{\"problem\": " + JsonString(rows[i].problem_key) +
             ", \"a\": " + side(rows[i].a) + ", \"b\": " + side(rows[i].b) +
             ", \"ratio\": " + JsonNumber(rows[i].ratio) + "}";
    }
    std::printf("%s]\n", out.c_str());
    return;
  }
  if (csv) {
    std::printf(
        "problem,device_a,template_a,config_a,median_ms_a,device_b,template_b,config_b,median_ms_b,"
        "ratio\n");
    for (const auto& r : rows) {
      std::printf("%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", CsvField(r.problem_key).c_str(),
                  CsvField(r.a.device_name).c_str(), CsvField(r.a.template_name).c_str(),
                  CsvField(r.a.config_key).c_str(), JsonNumber(r.a.median_ms).c_str(),
                  CsvField(r.b.device_name).c_str(), CsvField(r.b.template_name).c_str(),
                  CsvField(r.b.config_key).c_str(), JsonNumber(r.b.median_ms).c_str(),
                  JsonNumber(r.ratio).c_str());
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

}  // namespace

int Query(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv,
            {"db", "device", "problem", "template", "status", "where", "top", "limit", "compare"},
            {"best", "json", "csv"}, "query");
  const bool compare = args.Has("compare");
  if (compare) {
    if (args.positional().size() != 1) {
      throw Error(ErrorCode::kBadArgument,
                  "--compare takes two devices: --compare DEVICE_A DEVICE_B");
    }
    for (const char* other : {"device", "status", "top", "best", "limit"}) {
      if (args.Has(other)) {
        throw Error(ErrorCode::kBadArgument,
                    std::string("--compare compares best ok configs; drop --") + other);
      }
    }
  } else if (!args.positional().empty()) {
    throw Error(ErrorCode::kBadArgument, "unexpected argument '" + args.positional()[0] + "'");
  }
  if (args.Has("json") && args.Has("csv")) {
    throw Error(ErrorCode::kBadArgument, "--json or --csv, not both");
  }
  if (args.Has("best") && args.Has("top")) {
    throw Error(ErrorCode::kBadArgument, "--best is --top 1; give one of them");
  }
  results_db::QueryFilter filter;
  if (args.Has("status")) {
    const std::string name = args.Get("status");
    filter.status = ParseStatus(name);
    if (!filter.status || !IsMeasurementStatus(*filter.status)) {
      std::vector<std::string> statuses;
      for (Status s : kAllStatuses) {
        if (IsMeasurementStatus(s)) statuses.push_back(StatusName(s));
      }
      throw Error(ErrorCode::kBadArgument,
                  "unknown status '" + name + "' (one of " + Joined(statuses) + ")");
    }
  }
  if (args.Has("top")) {
    filter.top_k = args.GetInt("top", 0);
    if (filter.top_k < 1) throw Error(ErrorCode::kBadArgument, "--top takes a positive number");
  }
  filter.limit = args.GetInt("limit", 0);
  if (filter.limit < 0) throw Error(ErrorCode::kBadArgument, "--limit takes a positive number");
  if (args.Has("problem")) filter.problem_key = Problem::Parse(args.Get("problem")).Key();
  if (args.Has("template")) filter.template_name = args.Get("template");
  filter.best_only = args.Has("best");
  for (const auto& where : args.GetAll("where")) filter.params.push_back(ParseWhere(where));

  results_db::Store store = results_db::Store::OpenExisting(args.Get("db", "beast.db"));
  CheckParameters(store, filter);
  if (compare) {
    std::string a = ResolveDevice(store, args.Get("compare"));
    std::string b = ResolveDevice(store, args.positional()[0]);
    PrintComparison(store.Compare(a, b, filter), a, b, args.Has("json"), args.Has("csv"));
    return 0;
  }
  if (args.Has("device")) filter.device_name = ResolveDevice(store, args.Get("device"));
  PrintRows(store.Query(filter), args.Has("json"), args.Has("csv"));
  return 0;
}

}  // namespace beast::cli
