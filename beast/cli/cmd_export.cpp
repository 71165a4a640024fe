// beast export: writes the winners of a database as a tuned kernel library (a
// CMake project with a C API), then says what it wrote and how to build it.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "beast/cli/command_line.hpp"
#include "beast/cli/device_name.hpp"
#include "beast/cli/json_text.hpp"
#include "beast/cli/verbs.hpp"
#include "beast/core/error.hpp"
#include "beast/export/export_plan.hpp"
#include "beast/export/exporter.hpp"
#include "beast/problem/job_file.hpp"
#include "beast/problem/problem.hpp"
#include "results_db/store.hpp"

namespace beast::cli {
namespace {

constexpr int kExitStale = 3;  // distinct from bad input (1) and usage (2), for scripts

const char kDetails[] =
    "Writes the fastest ok config of every (device, problem) in the database (default\n"
    "beast.db) as a CMake project in DIR: the C library BeastTuned::beast_tuned with\n"
    "include/beast_tuned.h. --device D (repeatable: a device name as `beast query` shows\n"
    "it, or a unique part of it) exports only the winners tuned on those devices. DIR must be\n"
    "absent, empty or a previous export, which is replaced. A template that changed since\n"
    "it was tuned is refused: re-tune it.\n"
    "--problem P (repeatable) and --shapes FILE (one problem per line, # comments) name\n"
    "shapes the library will be called with that may not be tuned: on each device that\n"
    "did not tune one, it gets the winner config of the nearest tuned problem of the\n"
    "same op and layout (transpositions for gemm) whose template's hard constraints\n"
    "accept it, rendered for it; distance: Euclidean over the log2 sizes. One with no\n"
    "fitting winner stays on the generic kernel, and the export says so. --problems FILE\n"
    "takes a batch job's file (beast tune --problems): every problem of the job is served,\n"
    "and the export says which have a winner and which fall back.\n"
    "--pytorch also writes DIR/pytorch: the library as PyTorch operators\n"
    "(torch.ops.beast.conv2d, gemm, linear; the Python package beast_torch with Conv2d and\n"
    "replace_convs), a CMake project that builds the library as its subproject against\n"
    "find_package(Torch); and DIR/examples/pytorch, which times a model both ways.\n"
    "beast export --check DIR [--db FILE] [--templates DIR] tells whether the export in\n"
    "DIR is stale: a better config measured since, a problem tuned since or gone, a\n"
    "nearest choice that changed, a template edited since. Exit 0 when up to date, 3 when\n"
    "stale (one line per difference), 1 or 2 on bad input (2: DIR is not an export);\n"
    "--json prints {out, db, entries, up_to_date, stale: [...]} instead.\n"
    "The database and the templates must lie outside DIR: an export replaces it whole.\n";

// A shape the library is asked to serve: any problem (its C API takes every
// dtype) but a math=tf32 one; throws naming what is wrong.
void CheckServed(const std::string& text) { CheckServable(Problem::Parse(text)); }

// The problems of a --shapes file, each checked: FILE:LINE names a bad one.
std::vector<std::string> ReadShapes(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw Error(ErrorCode::kNotFound, "cannot read --shapes " + path);
  std::vector<std::string> problems;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    line = line.substr(0, line.find('#'));
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    try {
      CheckServed(line);
    } catch (const Error& e) {
      throw Error(ErrorCode::kBadInput, path + ":" + std::to_string(number) + ": " + e.what());
    }
    problems.push_back(line);
  }
  return problems;
}

// Which calls an entry serves, as --json and the summary say it.
const char* CallsName(EntryCalls calls) {
  switch (calls) {
    case EntryCalls::kPrepared:
      return "prepared";
    case EntryCalls::kPlain:
      return "plain";
    default:
      return "all";
  }
}

// " (+ 2.1 ms prepare once per weight buffer; prepared calls)" and the like.
std::string CallsNote(const ExportEntry& e) {
  char prepare[96] = "";
  if (e.prepare_ms)
    std::snprintf(prepare, sizeof prepare, " + %.4g ms prepare once per weight buffer",
                  *e.prepare_ms);
  const std::string calls = e.calls == EntryCalls::kPrepared ? "; calls with prepared weights"
                            : e.calls == EntryCalls::kPlain  ? "; plain calls"
                                                             : "";
  return prepare + calls;
}

void PrintJson(const ExportSummary& s) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const ExportEntry& e : s.entries) {
    nlohmann::ordered_json entry = {
        {"problem", e.problem_key},         {"template", e.template_name},
        {"template_hash", e.template_hash}, {"config", e.config_key},
        {"device", e.device_name},          {"driver", e.device_driver},
        {"median_ms", e.median_ms},         {"tier", e.nearest ? "nearest" : "exact"}};
    if (e.nearest) {
      entry["source_problem"] = e.source_problem;
      entry["distance"] = e.distance;
    }
    entry["calls"] = CallsName(e.calls);
    entry["prepare_ms"] = e.prepare_ms ? nlohmann::ordered_json(*e.prepare_ms) : nullptr;
    entries.push_back(entry);
  }
  const nlohmann::ordered_json out = {{"out", s.out_dir},
                                      {"entries", entries},
                                      {"files", s.files},
                                      {"skipped", s.skipped},
                                      {"generic", s.generic}};
  std::printf("%s\n", JsonText(out).c_str());
}

int Check(const CLI::App& app, ExportOptions options, const std::string& dir, bool json) {
  // The check keeps to the devices the export was made for (its stamp).
  for (const char* option :
       {"--device", "--problem", "--shapes", "--problems", "--out", "--pytorch"}) {
    if (Given(app, option)) {
      throw Error(ErrorCode::kBadArgument,
                  std::string("--check takes no ") + option +
                      " (it compares with what the export was made from: its stamp)");
    }
  }
  options.out_dir = dir;
  const ExportCheck check = CheckExport(options);
  if (json) {
    const nlohmann::ordered_json out = {{"out", options.out_dir},
                                        {"db", options.db_path},
                                        {"entries", check.entries},
                                        {"up_to_date", check.stale.empty()},
                                        {"stale", check.stale}};
    std::printf("%s\n", JsonText(out).c_str());
    return check.stale.empty() ? 0 : kExitStale;
  }
  if (check.stale.empty()) {
    std::printf("%s is up to date with %s (%zu kernels)\n", options.out_dir.c_str(),
                options.db_path.c_str(), check.entries);
    return 0;
  }
  std::printf("%s is stale against %s:\n", options.out_dir.c_str(), options.db_path.c_str());
  for (const auto& line : check.stale) std::printf("  %s\n", line.c_str());
  return kExitStale;
}

void PrintSummary(const ExportOptions& options, const ExportSummary& s) {
  std::printf("exported %zu tuned kernels from %s to %s:\n", s.entries.size(),
              options.db_path.c_str(), s.out_dir.c_str());
  for (const ExportEntry& e : s.entries) {
    if (e.nearest) {
      std::printf("  %s  nearest: %s  %s  tuned for %s (distance %.3f) on %s (%.4g ms there)\n",
                  e.problem_key.c_str(), e.template_name.c_str(), e.config_key.c_str(),
                  e.source_problem.c_str(), e.distance, e.device_name.c_str(), e.median_ms);
    } else {
      std::printf("  %s  %s  %s  on %s (%.4g ms%s)\n", e.problem_key.c_str(),
                  e.template_name.c_str(), e.config_key.c_str(), e.device_name.c_str(), e.median_ms,
                  CallsNote(e).c_str());
    }
  }
  for (const auto& line : s.skipped) std::printf("skipped %s\n", line.c_str());
  for (const auto& line : s.generic) std::printf("generic %s\n", line.c_str());
  std::printf("wrote %zu files. Build and install it with:\n", s.files.size());
  std::printf("  cmake -S %s -B %s/build -DCMAKE_BUILD_TYPE=Release\n", s.out_dir.c_str(),
              s.out_dir.c_str());
  std::printf("  cmake --build %s/build\n", s.out_dir.c_str());
  std::printf("  cmake --install %s/build --prefix PREFIX\n", s.out_dir.c_str());
  std::printf(
      "then find_package(BeastTuned) with PREFIX in CMAKE_PREFIX_PATH and link "
      "BeastTuned::beast_tuned.\n");
  if (options.pytorch) {
    std::printf("The PyTorch operators (needs libtorch; see %s/pytorch/README.md):\n",
                s.out_dir.c_str());
    std::printf("  cmake -S %s/pytorch -B %s/pytorch/build -DCMAKE_BUILD_TYPE=Release\n",
                s.out_dir.c_str(), s.out_dir.c_str());
    std::printf("  cmake --build %s/pytorch/build\n", s.out_dir.c_str());
    std::printf("then PYTHONPATH=%s/pytorch/build python3 -c 'import beast_torch'\n",
                s.out_dir.c_str());
  }
}

}  // namespace

int Export(const Argv& argv) {
  VerbApp app("export",
              "Write the tuned kernel library as a CMake project.\n"
              "usage: beast export --out DIR ... | beast export --check DIR",
              kDetails);
  ExportOptions options = ExportOptions::Defaults();
  options.db_path = "beast.db";
  std::string check_dir, shapes, job_file;
  std::vector<std::string> devices;
  bool json = false;
  app.add_option("--db", options.db_path, "the database (default beast.db)");
  app.add_option("--out", options.out_dir, "the folder to write");
  app.add_option("--templates", options.templates_dir, "the templates folder");
  app.add_option("--check", check_dir, "tell whether the export in DIR is stale");
  AddRepeated(app, "--problem", &options.requested, "a shape to serve (repeatable)");
  app.add_option("--shapes", shapes, "a file of shapes to serve, one problem per line");
  app.add_option("--problems", job_file, "a job file (beast tune --problems) to serve");
  AddRepeated(app, "--device", &devices, "export only this device's winners (repeatable)");
  app.add_flag("--pytorch", options.pytorch,
               "also write pytorch/: the library as PyTorch operators (beast_torch)");
  app.add_flag("--json", json, "print JSON");
  std::vector<std::string> positional;
  if (!ParseCommandLine(app, argv, &positional)) return 0;
  if (!positional.empty()) {
    throw Error(ErrorCode::kBadArgument,
                "unexpected argument \"" + positional[0] + "\" (see --help)");
  }
  if (Given(app, "--check")) return Check(app, options, check_dir, json);
  if (!Given(app, "--out")) throw Error(ErrorCode::kBadArgument, "--out is required");
  if (!devices.empty()) {
    results_db::Store store = results_db::Store::OpenExisting(options.db_path);
    for (const auto& d : devices) options.devices.push_back(ResolveDevice(store, d));
  }
  for (const auto& p : options.requested) CheckServed(p);
  if (Given(app, "--shapes")) {
    for (const auto& p : ReadShapes(shapes)) options.requested.push_back(p);
  }
  if (Given(app, "--problems")) {
    // A job's math=tf32 problems are tuned, not served: their winners are
    // listed as skipped, as any tuned math=tf32 winner is.
    for (const JobProblem& p : ReadJobFile(job_file)) {
      if (!p.problem.tf32()) options.requested.push_back(p.problem.Key());
    }
  }
  const ExportSummary s = ExportLibrary(options);
  if (json) {
    PrintJson(s);
  } else {
    PrintSummary(options, s);
  }
  return 0;
}

}  // namespace beast::cli
