// beast export: writes the winners of a database as a tuned kernel library (a
// CMake project with a C API), then says what it wrote and how to build it.
#include <cstdio>

#include "args.hpp"
#include "beast/error.hpp"
#include "beast/exporter.hpp"
#include "beast/json.hpp"
#include "verbs.hpp"

namespace beast::cli {
namespace {

constexpr int kExitStale = 3;  // distinct from bad input (1) and usage (2), for scripts

const char kHelp[] =
    "usage: beast export [--db FILE] --out DIR [--templates DIR] [--json]\n"
    "Writes the fastest ok config of every (device, problem) in the database (default\n"
    "beast.db) as a CMake project in DIR: the C library BeastTuned::beast_tuned with\n"
    "include/beast_tuned.h. DIR must be absent, empty or a previous export, which is\n"
    "replaced. A template that changed since it was tuned is refused: re-tune it.\n"
    "       beast export --check DIR [--db FILE] [--templates DIR]\n"
    "Tells whether the export in DIR is stale: a better config measured since, a problem\n"
    "tuned since or gone, a template edited since. Exit 0 when up to date, 3 when stale\n"
    "(one line per difference), 1 or 2 on bad input (2: DIR is not an export).\n";

void PrintJson(const ExportSummary& s) {
  std::string out = "{\"out\": " + JsonString(s.out_dir) + ", \"entries\": [";
  for (size_t i = 0; i < s.entries.size(); ++i) {
    const ExportEntry& e = s.entries[i];
    out += std::string(i ? ", " : "") + "{\"problem\": " + JsonString(e.problem_key) +
           ", \"template\": " + JsonString(e.template_name) +
           ", \"template_hash\": " + JsonString(e.template_hash) +
           ", \"config\": " + JsonString(e.config_key) +
           ", \"device\": " + JsonString(e.device_name) +
           ", \"driver\": " + JsonString(e.device_driver) +
           ", \"median_ms\": " + JsonNumber(e.median_ms) + "}";
  }
  out += "], \"files\": [";
  for (size_t i = 0; i < s.files.size(); ++i)
    out += std::string(i ? ", " : "") + JsonString(s.files[i]);
  out += "], \"skipped\": [";
  for (size_t i = 0; i < s.skipped.size(); ++i) {
    out += std::string(i ? ", " : "") + JsonString(s.skipped[i]);
  }
  std::printf("%s]}\n", out.c_str());
}

}  // namespace

int Export(const Argv& argv) {
  if (PrintHelpIfAsked(argv, kHelp)) return 0;
  Args args(argv, {"db", "out", "templates", "check"}, {"json"}, "export");
  if (!args.positional().empty()) {
    throw Error(ErrorCode::kBadArgument,
                "beast export: unexpected argument \"" + args.positional()[0] + "\" (see --help)");
  }
  ExportOptions options = ExportOptions::Defaults();
  options.db_path = args.Get("db", "beast.db");
  options.templates_dir = args.Get("templates", options.templates_dir);
  if (args.Has("check")) {
    options.out_dir = args.Get("check", "");
    ExportCheck check = CheckExport(options);
    if (check.stale.empty()) {
      std::printf("%s is up to date with %s (%zu kernels)\n", options.out_dir.c_str(),
                  options.db_path.c_str(), check.entries);
      return 0;
    }
    std::printf("%s is stale against %s:\n", options.out_dir.c_str(), options.db_path.c_str());
    for (const auto& line : check.stale) std::printf("  %s\n", line.c_str());
    return kExitStale;
  }
  options.out_dir = args.Require("out");
  ExportSummary s = ExportLibrary(options);
  if (args.Has("json")) {
    PrintJson(s);
    return 0;
  }
  std::printf("exported %zu tuned kernels from %s to %s:\n", s.entries.size(),
              options.db_path.c_str(), s.out_dir.c_str());
  for (const ExportEntry& e : s.entries) {
    std::printf("  %s  %s  %s  on %s (%.4g ms)\n", e.problem_key.c_str(), e.template_name.c_str(),
                e.config_key.c_str(), e.device_name.c_str(), e.median_ms);
  }
  for (const auto& line : s.skipped) std::printf("skipped %s\n", line.c_str());
  std::printf("wrote %zu files. Build and install it with:\n", s.files.size());
  std::printf("  cmake -S %s -B %s/build -DCMAKE_BUILD_TYPE=Release\n", s.out_dir.c_str(),
              s.out_dir.c_str());
  std::printf("  cmake --build %s/build\n", s.out_dir.c_str());
  std::printf("  cmake --install %s/build --prefix PREFIX\n", s.out_dir.c_str());
  std::printf(
      "then find_package(BeastTuned) with PREFIX in CMAKE_PREFIX_PATH and link "
      "BeastTuned::beast_tuned.\n");
  return 0;
}

}  // namespace beast::cli
