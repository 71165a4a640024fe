// beast query: reads measurements from a database, as a table, JSON or CSV.
#include <cstdio>
#include <set>

#include "args.hpp"
#include "beast/error.hpp"
#include "beast/json.hpp"
#include "beast/problem.hpp"
#include "results_db/store.hpp"
#include "verbs.hpp"

namespace beast::cli {
namespace {

const char kHelp[] =
    "usage: beast query [--db FILE] [--best] [--problem P] [--template T] [--status S]\n"
    "                   [--limit N] [--json | --csv]\n"
    "Lists measurements (default database beast.db). --best keeps the best ok config per\n"
    "device, problem and template, with its speed-up over the template's default config.\n"
    "Where a vendor library's baseline was measured on the same device and problem, a\n"
    "column \"vs LIBRARY\" gives its fastest ok time divided by the row's time.\n";

std::string Opt(const std::optional<double>& v) { return v ? JsonNumber(*v) : ""; }

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

}  // namespace

int Query(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv, {"db", "problem", "template", "status", "limit"}, {"best", "json", "csv"}, "query");
  results_db::Store store = results_db::Store::OpenExisting(args.Get("db", "beast.db"));
  results_db::QueryFilter filter;
  if (args.Has("problem")) filter.problem_key = Problem::Parse(args.Get("problem")).Key();
  if (args.Has("template")) filter.template_name = args.Get("template");
  if (args.Has("status")) filter.status = args.Get("status");
  filter.best_only = args.Has("best");
  filter.limit = args.GetInt("limit", 0);
  std::vector<results_db::ResultRow> rows = store.Query(filter);
  const std::vector<std::string> libraries = BaselineLibraries(rows);
  if (args.Has("json")) {
    std::string out = "[";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      auto num = [](const std::optional<double>& v) { return v ? JsonNumber(*v) : std::string("null"); };
      out += std::string(i ? ",\n " : "") + "{\"device\": " + JsonString(r.device_name) +
             ", \"backend\": " + JsonString(r.backend) + ", \"problem\": " + JsonString(r.problem_key) +
             ", \"template\": " + JsonString(r.template_name) + ", \"config\": " + JsonString(r.config_key) +
             ", \"params\": " + r.params_json + ", \"status\": " + JsonString(r.status) +
             ", \"is_default\": " + (r.is_default ? "true" : "false") + ", \"median_ms\": " + num(r.median_ms) +
             ", \"spread\": " + num(r.spread) + ", \"gflops\": " + num(r.gflops) +
             ", \"max_error\": " + num(r.max_error) + ", \"speedup_vs_default\": " + num(r.speedup_vs_default) +
             ", \"error\": " + JsonString(r.error_text) + ", \"baselines\": [";
      for (size_t j = 0; j < r.baselines.size(); ++j) {
        const auto& b = r.baselines[j];
        out += std::string(j ? ", " : "") + "{\"library\": " + JsonString(b.library) +
               ", \"routine\": " + JsonString(b.routine) + ", \"median_ms\": " + JsonNumber(b.median_ms) +
               ", \"speedup\": " + num(b.speedup) + "}";
      }
      out += "]}";
    }
    std::printf("%s]\n", out.c_str());
    return 0;
  }
  if (args.Has("csv")) {
    std::string header =
        "device,backend,problem,template,config,status,is_default,median_ms,spread,gflops,max_error,"
        "speedup_vs_default";
    for (const auto& library : libraries) header += "," + CsvField("vs_" + library);
    std::printf("%s\n", header.c_str());
    for (const auto& r : rows) {
      std::string vs;
      for (const auto& library : libraries) vs += "," + Opt(VsLibrary(r, library));
      std::printf("%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s%s\n", CsvField(r.device_name).c_str(), r.backend.c_str(),
                  CsvField(r.problem_key).c_str(), r.template_name.c_str(), CsvField(r.config_key).c_str(),
                  r.status.c_str(), r.is_default ? 1 : 0, Opt(r.median_ms).c_str(), Opt(r.spread).c_str(),
                  Opt(r.gflops).c_str(), Opt(r.max_error).c_str(), Opt(r.speedup_vs_default).c_str(),
                  vs.c_str());
    }
    return 0;
  }
  std::string vs_header;
  for (const auto& library : libraries) {
    char column[64];
    std::snprintf(column, sizeof column, " %12s", ("vs " + library).c_str());
    vs_header += column;
  }
  std::printf("%-20s %-14s %11s %9s %8s%s %-8s  %s\n", "template", "status", "median ms", "GFLOP/s", "speedup",
              vs_header.c_str(), "default", "config / problem");
  const int indent = 60 + 13 * static_cast<int>(libraries.size());
  for (const auto& r : rows) {
    std::string speedup = r.speedup_vs_default ? std::to_string(*r.speedup_vs_default).substr(0, 5) + "x" : "";
    std::string vs;
    for (const auto& library : libraries) {
      char column[64];
      std::snprintf(column, sizeof column, " %12s", Ratio(VsLibrary(r, library)).c_str());
      vs += column;
    }
    std::printf("%-20s %-14s %11s %9s %8s%s %-8s  %s\n%*s  %s\n", r.template_name.c_str(), r.status.c_str(),
                r.median_ms ? std::to_string(*r.median_ms).c_str() : "-",
                r.gflops ? std::to_string(*r.gflops).substr(0, 8).c_str() : "-", speedup.c_str(), vs.c_str(),
                r.is_default ? "default" : "", r.config_key.c_str(), indent, "", r.problem_key.c_str());
  }
  std::printf("%zu rows\n", rows.size());
  return 0;
}

}  // namespace beast::cli
