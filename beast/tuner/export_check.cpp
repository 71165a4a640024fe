// beast export --check: is an exported library stale? It compares the
// entries the export's stamp file recorded with the database's current
// winners (a better config measured since, a problem tuned since, one gone)
// and with the templates' current hashes (a template edited since).
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "beast/error.hpp"
#include "beast/exporter.hpp"
#include "beast/space_spec.hpp"
#include "export_plan.hpp"
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

// The entries the stamp recorded; throws when the folder is not an export.
std::map<EntryKey, ExportEntry> ReadStamp(const fs::path& dir, bool* has_entries) {
  std::ifstream stamp(dir / kExportStampFile);
  std::string line;
  if (!stamp || !std::getline(stamp, line) || line != "beast export") {
    throw Error(ErrorCode::kBadArgument, dir.string() + " is not a beast export (no " +
                                             kExportStampFile + " in it)");
  }
  std::map<EntryKey, ExportEntry> entries;
  *has_entries = false;
  while (std::getline(stamp, line)) {
    std::vector<std::string> f = SplitTabs(line);
    if (f.empty() || f[0] != "entry") continue;
    *has_entries = true;
    if (f.size() != 8) {
      throw Error(ErrorCode::kBadInput,
                  (dir / kExportStampFile).string() + ": malformed entry line: " + line);
    }
    ExportEntry e;
    e.device_name = f[1];
    e.device_driver = f[2];
    e.problem_key = f[3];
    e.template_name = f[4];
    e.template_hash = f[5];
    e.config_key = f[6];
    e.median_ms = std::stod(f[7]);
    entries[KeyOf(e)] = e;
  }
  return entries;
}

}  // namespace

std::string FormatStampEntry(const ExportEntry& e) {
  std::ostringstream ms;
  ms.precision(17);
  ms << e.median_ms;
  return "entry\t" + e.device_name + "\t" + e.device_driver + "\t" + e.problem_key + "\t" +
         e.template_name + "\t" + e.template_hash + "\t" + e.config_key + "\t" + ms.str();
}

ExportCheck CheckExport(const ExportOptions& options) {
  bool has_entries = false;
  std::map<EntryKey, ExportEntry> exported = ReadStamp(options.out_dir, &has_entries);
  ExportCheck check;
  check.entries = exported.size();
  if (!has_entries) {
    check.stale.push_back("the export records no entries (written by an older beast): export again");
    return check;
  }
  std::map<EntryKey, ExportEntry> now;
  {
    results_db::Store store = results_db::Store::OpenExisting(options.db_path);
    for (const auto& row : BestPerProblem(store.Winners())) {
      if (row.backend != "opencl") continue;  // the exported runtime runs OpenCL only
      ExportEntry e;
      e.device_name = row.device_name;
      e.device_driver = row.driver_version;
      e.problem_key = row.problem_key;
      e.template_name = row.template_name;
      e.template_hash = row.template_hash;
      e.config_key = row.config_key;
      e.median_ms = row.median_ms;
      now[KeyOf(e)] = e;
    }
  }
  for (const auto& [key, e] : exported) {
    const std::string where = e.problem_key + " on " + e.device_name;
    auto it = now.find(key);
    if (it == now.end()) {
      check.stale.push_back(where + ": exported " + Describe(e) + ", no longer in the database");
    } else if (it->second.template_name != e.template_name ||
               it->second.template_hash != e.template_hash ||
               it->second.config_key != e.config_key) {
      check.stale.push_back(where + ": exported " + Describe(e) + ", the database's best is now " +
                            Describe(it->second));
    }
  }
  for (const auto& [key, e] : now) {
    if (!exported.count(key)) {
      check.stale.push_back(e.problem_key + " on " + e.device_name + ": tuned (" + Describe(e) +
                            ") but not in the export");
    }
  }
  std::map<std::string, std::string> hashes;  // template -> hash exported
  for (const auto& [key, e] : exported) hashes[e.template_name] = e.template_hash;
  for (const auto& [name, hash] : hashes) {
    std::string current;
    try {
      current = SpaceSpec::Load(options.templates_dir, name).hash;
    } catch (const Error&) {
      check.stale.push_back("template " + name + " is gone from " + options.templates_dir);
      continue;
    }
    if (current != hash) {
      check.stale.push_back("template " + name + " changed since the export (hash " + hash +
                            " exported, " + current + " now): re-tune and export again");
    }
  }
  return check;
}

}  // namespace beast
