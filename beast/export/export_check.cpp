// beast export --check: is an exported library stale? It compares the
// entries the export's stamp file recorded with the database's current
// winners (a better config measured since, a problem tuned since, one gone),
// the nearest entries with the choices an export would make now for the same
// requested problems, and both with the templates' current hashes (a
// template edited since).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "beast/core/error.hpp"
#include "beast/export/export_nearest.hpp"
#include "beast/export/export_plan.hpp"
#include "beast/export/exporter.hpp"
#include "beast/space/space_spec.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;

using EntryKey = std::tuple<std::string, std::string, std::string>;  // device, driver, problem

EntryKey KeyOf(const ExportEntry& e) { return {e.device_name, e.device_driver, e.problem_key}; }

std::string Describe(const ExportEntry& e) {
  std::ostringstream o;
  o << e.template_name << " " << e.config_key << " (" << e.median_ms << " ms)";
  return o.str();
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) fields.push_back(field);
  return fields;
}

std::string DescribeNearest(const ExportEntry& e) {
  return "nearest " + e.template_name + " " + e.config_key + " of " + e.source_problem;
}

// What a stamp file recorded.
struct Stamp {
  std::map<EntryKey, ExportEntry> exact;    // "entry" lines
  std::map<EntryKey, ExportEntry> nearest;  // "nearest" lines
  std::map<EntryKey, ExportEntry> plain;    // "plain" lines: plain calls' own winners
  std::vector<std::string> requested;       // "requested" lines
  std::vector<std::string> devices;         // "device" lines: the --device filter
  std::string beast_version;                // of the beast that exported it
  bool has_entries = false;
};

// The stamp of an export; throws when the folder is not an export.
Stamp ReadStamp(const fs::path& dir) {
  std::ifstream file(dir / kExportStampFile);
  std::string line;
  if (!file || !std::getline(file, line) || line != "beast export") {
    throw Error(ErrorCode::kBadArgument,
                dir.string() + " is not a beast export (no " + kExportStampFile + " in it)");
  }
  Stamp stamp;
  while (std::getline(file, line)) {
    std::vector<std::string> f = SplitTabs(line);
    if (line.rfind("beast_version ", 0) == 0) stamp.beast_version = line.substr(14);
    if (f.size() == 2 && f[0] == "requested") stamp.requested.push_back(f[1]);
    if (f.size() == 2 && f[0] == "device") stamp.devices.push_back(f[1]);
    if (f.empty() || (f[0] != "entry" && f[0] != "nearest" && f[0] != "plain")) continue;
    stamp.has_entries = true;
    const bool nearest = f[0] == "nearest";
    auto malformed = [&] {
      return Error(ErrorCode::kBadInput,
                   (dir / kExportStampFile).string() + ": malformed entry line: " + line);
    };
    if (f.size() != (nearest ? 10u : 8u)) throw malformed();
    // A number the stamp's writer wrote: anything else is a damaged stamp.
    auto number = [&](const std::string& text) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') throw malformed();
      return v;
    };
    ExportEntry e;
    e.device_name = f[1];
    e.device_driver = f[2];
    e.problem_key = f[3];
    e.template_name = f[4];
    e.template_hash = f[5];
    e.config_key = f[6];
    e.median_ms = number(f[7]);
    if (nearest) {
      e.nearest = true;
      e.source_problem = f[8];
      e.distance = number(f[9]);
    }
    if (f[0] == "plain") e.calls = EntryCalls::kPlain;
    (nearest ? stamp.nearest : f[0] == "plain" ? stamp.plain : stamp.exact)[KeyOf(e)] = e;
  }
  return stamp;
}

// Stale lines for the nearest entries: the choices PlanNearest makes now for
// the requested problems, against the ones exported. A problem tuned since
// is left to the exact comparison, which reports it.
void CheckNearest(const Stamp& stamp, const std::vector<results_db::WinnerRow>& every,
                  const std::map<EntryKey, ExportEntry>& exact_now, const std::string& templates,
                  std::vector<std::string>* stale) {
  if (stamp.requested.empty()) return;
  std::vector<Problem> requested;
  for (const auto& key : stamp.requested) requested.push_back(Problem::Parse(key));
  std::map<EntryKey, ExportEntry> now;
  for (const NearestChoice& c : PlanNearest(every, requested, templates).choices) {
    ExportEntry e;
    e.device_name = c.source.device_name;
    e.device_driver = c.source.driver_version;
    e.problem_key = c.problem.Key();
    e.template_name = c.source.template_name;
    e.template_hash = c.source.template_hash;
    e.config_key = c.source.config_key;
    e.source_problem = c.source.problem_key;
    now[KeyOf(e)] = e;
  }
  for (const auto& [key, e] : stamp.nearest) {
    const std::string where = e.problem_key + " on " + e.device_name;
    auto it = now.find(key);
    if (it == now.end()) {
      if (!exact_now.count(key)) {
        stale->push_back(where + ": exported " + DescribeNearest(e) +
                         ", now no tuned winner fits it");
      }
    } else if (it->second.source_problem != e.source_problem ||
               it->second.template_name != e.template_name ||
               it->second.template_hash != e.template_hash ||
               it->second.config_key != e.config_key) {
      stale->push_back(where + ": exported " + DescribeNearest(e) + ", now " +
                       DescribeNearest(it->second));
    }
  }
  for (const auto& [key, e] : now) {
    if (!stamp.nearest.count(key)) {
      stale->push_back(e.problem_key + " on " + e.device_name +
                       ": runs the generic kernel in the export, now " + DescribeNearest(e) +
                       " fits it");
    }
  }
}

}  // namespace

std::string FormatStampEntry(const ExportEntry& e) {
  std::ostringstream ms, distance;
  ms.precision(17);
  ms << e.median_ms;
  distance.precision(17);
  distance << e.distance;
  const char* kind = e.nearest ? "nearest" : e.calls == EntryCalls::kPlain ? "plain" : "entry";
  return std::string(kind) + "\t" + e.device_name + "\t" + e.device_driver + "\t" + e.problem_key +
         "\t" + e.template_name + "\t" + e.template_hash + "\t" + e.config_key + "\t" + ms.str() +
         (e.nearest ? "\t" + e.source_problem + "\t" + distance.str() : "");
}

namespace {

// The exact entries an export of the database would write now, by key: the
// winners every call or calls with prepared weights run, and (*plain) the
// plain calls' own winners where they differ.
std::map<EntryKey, ExportEntry> CurrentEntries(const std::vector<results_db::WinnerRow>& every,
                                               const std::vector<results_db::WinnerRow>& plain_rows,
                                               std::map<EntryKey, ExportEntry>* plain) {
  std::map<EntryKey, ExportEntry> now;
  for (const auto& [row, calls] : ExportedWinners(every, plain_rows)) {
    std::string why;
    if (!Exportable(row, &why)) continue;  // as the export leaves it out
    ExportEntry e;
    e.device_name = row.device_name;
    e.device_driver = row.driver_version;
    e.problem_key = row.problem_key;
    e.template_name = row.template_name;
    e.template_hash = row.template_hash;
    e.config_key = row.config_key;
    e.median_ms = row.median_ms;
    (calls == EntryCalls::kPlain ? *plain : now)[KeyOf(e)] = e;
  }
  return now;
}

// Exact entries exported and not (or no longer) the database's best; `what`
// names the calls they serve in the messages ("" for the main entries).
void CompareEntries(const std::map<EntryKey, ExportEntry>& exported,
                    const std::map<EntryKey, ExportEntry>& now, std::vector<std::string>* stale,
                    const std::string& what = "") {
  for (const auto& [key, e] : exported) {
    const std::string where = e.problem_key + " on " + e.device_name + what;
    auto it = now.find(key);
    if (it == now.end()) {
      stale->push_back(where + ": exported " + Describe(e) + ", no longer in the database");
    } else if (it->second.template_name != e.template_name ||
               it->second.template_hash != e.template_hash ||
               it->second.config_key != e.config_key) {
      stale->push_back(where + ": exported " + Describe(e) + ", the database's best is now " +
                       Describe(it->second));
    }
  }
  for (const auto& [key, e] : now) {
    if (!exported.count(key)) {
      stale->push_back(e.problem_key + " on " + e.device_name + what + ": tuned (" + Describe(e) +
                       ") but not in the export");
    }
  }
}

// Templates that changed (or went) since they were exported.
void CompareTemplates(const Stamp& stamp, const std::string& templates_dir,
                      std::vector<std::string>* stale) {
  std::map<std::string, std::string> hashes;  // template -> hash exported
  for (const auto& [key, e] : stamp.exact) hashes[e.template_name] = e.template_hash;
  for (const auto& [key, e] : stamp.nearest) hashes[e.template_name] = e.template_hash;
  for (const auto& [key, e] : stamp.plain) hashes[e.template_name] = e.template_hash;
  for (const auto& [name, hash] : hashes) {
    std::string current;
    try {
      current = SpaceSpec::Load(templates_dir, name).hash;
    } catch (const Error&) {
      stale->push_back("template " + name + " is gone from " + templates_dir);
      continue;
    }
    if (current != hash) {
      stale->push_back("template " + name + " changed since the export (hash " + hash +
                       " exported, " + current + " now): re-tune and export again");
    }
  }
}

}  // namespace

ExportCheck CheckExport(const ExportOptions& options) {
  const Stamp stamp = ReadStamp(options.out_dir);
  ExportCheck check;
  check.entries = stamp.exact.size() + stamp.nearest.size() + stamp.plain.size();
  if (!stamp.has_entries) {
    check.stale.push_back(
        "the export records no entries (written by an older beast): export again");
    return check;
  }
  // Another beast wrote another runtime and rendered with other templates.
  if (stamp.beast_version != BEAST_VERSION) {
    check.stale.push_back("exported by beast " + stamp.beast_version + ", this is beast " +
                          BEAST_VERSION + ": export again");
  }
  std::vector<results_db::WinnerRow> every, plain_rows;
  {
    results_db::Store store = results_db::Store::OpenExisting(options.db_path);
    every = OfDevices(store.Winners(), stamp.devices);
    plain_rows = OfDevices(store.Winners(std::nullopt, true), stamp.devices);
  }
  std::map<EntryKey, ExportEntry> plain_now;
  const std::map<EntryKey, ExportEntry> now = CurrentEntries(every, plain_rows, &plain_now);
  CompareEntries(stamp.exact, now, &check.stale);
  CompareEntries(stamp.plain, plain_now, &check.stale, " (plain calls)");
  CheckNearest(stamp, every, now, options.templates_dir, &check.stale);
  CompareTemplates(stamp, options.templates_dir, &check.stale);
  return check;
}

}  // namespace beast
