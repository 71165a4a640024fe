// Reading a recorded space (recorded_space.hpp).
#include "beast/search/recorded_space.hpp"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "beast/core/error.hpp"

namespace beast {
namespace {

[[noreturn]] void Bad(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kBadInput, path + ": not a Kernel Tuner cache: " + why);
}

// The file's text, gunzipped when it is gzip (zlib reads plain files as they are).
std::string ReadText(const std::string& path) {
  // zlib opens a directory, then fails to read it.
  std::error_code unreadable;  // then gzopen says so
  if (std::filesystem::is_directory(path, unreadable))
    throw Error(ErrorCode::kBadInput, path + ": is a directory, not a Kernel Tuner cache");
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw Error(ErrorCode::kNotFound, path + ": cannot be read");
  std::string text;
  char chunk[1 << 16];
  int n = 0;
  while ((n = gzread(file, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<size_t>(n));
  const bool failed = n < 0;
  // A gzip stream cut short reads as if it ended: only gzclose says so
  // (Z_BUF_ERROR), and the cut text could pass for a cache left open.
  const bool cut = gzclose(file) == Z_BUF_ERROR;
  if (failed) throw Error(ErrorCode::kBadInput, path + ": cannot be decompressed");
  if (cut) throw Error(ErrorCode::kBadInput, path + ": the gzip stream is cut short");
  return text;
}

// Kernel Tuner before 0.4.4 recorded a failed config as this time (ms) or
// more (analysis/beast_analysis/kernel_tuner_import.py reads it so too).
constexpr double kOldFailureTime = 1e20;

// Kernel Tuner writes the closing braces only when a run ends: a cache it
// left open ends with the last entry and a comma.
nlohmann::json ParseCache(const std::string& path, const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    std::string closed = text;
    closed.erase(closed.find_last_not_of(" \t\r\n,") + 1);
    // Both braces missing, or (a file cut after the first) the last one.
    for (const char* end : {"}\n}", "}"}) {
      json = nlohmann::json::parse(closed + end, nullptr, false);
      if (!json.is_discarded()) break;
    }
  }
  if (json.is_discarded()) Bad(path, "not JSON");
  if (!json.is_object() || !json.contains("cache") || !json["cache"].is_object() ||
      !json.contains("tune_params_keys") || !json["tune_params_keys"].is_array())
    Bad(path, "it lacks \"tune_params_keys\" or \"cache\"");
  return json;
}

Value ValueOf(const std::string& path, const std::string& name, const nlohmann::json& v) {
  if (v.is_boolean()) return Value::Bool(v.get<bool>());
  if (v.is_number_integer()) return Value::Int(v.get<int64_t>());
  if (v.is_number()) return Value::Float(v.get<double>());
  Bad(path,
      "parameter " + name + " has a value that is not a number, which beast spaces do not hold");
}

}  // namespace

double RecordedSpace::OptimumMs() const {
  double best = std::numeric_limits<double>::infinity();
  for (const Trial& t : outcomes) {
    if (t.Succeeded()) best = std::min(best, *t.ms);
  }
  if (best == std::numeric_limits<double>::infinity())
    throw Error(ErrorCode::kBadInput, source + ": no config ran successfully: nothing to replay");
  return best;
}

bool RecordedSpace::SameParameters(const std::vector<std::string>& order) const {
  std::vector<std::string> a = names, b = order;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  // A name given twice is no reordering (Config::InOrder would refuse it).
  return a == b && std::adjacent_find(a.begin(), a.end()) == a.end();
}

RecordedSpace RecordedSpace::InOrder(const std::vector<std::string>& order) const {
  RecordedSpace out = *this;
  out.names = order;
  for (Config& c : out.configs) c = *c.InOrder(order);  // SameParameters: never nullopt
  for (Trial& t : out.outcomes) t.config = *t.config.InOrder(order);
  return out;
}

RecordedSpace ReadKernelTunerCache(const std::string& path) {
  const nlohmann::json json = ParseCache(path, ReadText(path));
  RecordedSpace space;
  space.source = path;
  for (const auto& name : json["tune_params_keys"]) {
    if (!name.is_string()) Bad(path, "\"tune_params_keys\" holds a name that is not a string");
    if (std::find(space.names.begin(), space.names.end(), name.get<std::string>()) !=
        space.names.end())
      Bad(path, "\"tune_params_keys\" names " + name.get<std::string>() + " twice");
    space.names.push_back(name.get<std::string>());
  }
  bool costs_known = true;
  std::map<std::string, std::string> entry_of;  // config key -> the entry that holds it
  for (const auto& [key, entry] : json["cache"].items()) {
    std::vector<Value> values;
    for (const std::string& name : space.names) {
      if (!entry.contains(name)) Bad(path, "entry \"" + key + "\" lacks parameter " + name);
      values.push_back(ValueOf(path, name, entry[name]));
    }
    if (!entry.contains("time")) Bad(path, "entry \"" + key + "\" has no time");
    Trial trial;
    trial.config = Config(space.names, std::move(values));
    const auto [seen, fresh] = entry_of.emplace(trial.config.Key(), key);
    if (!fresh)
      Bad(path, "entries \"" + seen->second + "\" and \"" + key + "\" hold the same config");
    const nlohmann::json& time = entry["time"];
    const std::string failure = time.is_string() ? time.get<std::string>() : "";
    if (time.is_number() && time.get<double>() >= kOldFailureTime) {
      trial.status = Status::kRuntimeError;  // how Kernel Tuner before 0.4.4 wrote a failure
    } else if (time.is_number() && time.get<double>() > 0) {
      trial.ms = time.get<double>();
    } else if (failure == "CompilationFailedConfig") {
      trial.status = Status::kCompileError;
    } else if (failure == "InvalidConfig") {
      trial.status = Status::kPrunedAfterCompile;
    } else if (failure == "RuntimeFailedConfig") {
      trial.status = Status::kRuntimeError;
    } else {
      // Taken for a failure, it would move the optimum silently.
      std::string shown = time.dump();
      if (shown.size() > 40) {
        size_t cut = 37;
        while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;
        shown = shown.substr(0, cut) + "...";  // not inside a UTF-8 character
      }
      Bad(path, "entry \"" + key + "\" has time " + shown +
                    ": neither a positive number of milliseconds nor a Kernel Tuner failure "
                    "(RuntimeFailedConfig, CompilationFailedConfig, InvalidConfig, 1e20)");
    }
    space.configs.push_back(trial.config);
    space.outcomes.push_back(std::move(trial));
    auto ms = [&](const char* field) {
      return entry.contains(field) && entry[field].is_number() ? entry[field].get<double>() : -1.0;
    };
    const double compile = ms("compile_time"), run = ms("benchmark_time");
    const double verify = entry.contains("verification_time") ? ms("verification_time") : 0.0;
    if (compile >= 0 && run >= 0 && verify >= 0) {
      space.costs.push_back({compile, run + verify});
    } else {
      costs_known = false;
    }
  }
  if (space.configs.empty()) Bad(path, "its cache holds no config");
  if (!costs_known) space.costs.clear();
  return space;
}

}  // namespace beast
