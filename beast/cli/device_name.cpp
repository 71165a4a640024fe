// ResolveDevice (device_name.hpp).
#include "beast/cli/device_name.hpp"

#include <cctype>
#include <set>

#include "beast/core/error.hpp"

namespace beast::cli {
namespace {

std::string Joined(const std::set<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

}  // namespace

std::string ResolveDevice(results_db::Store& store, const std::string& text) {
  std::set<std::string> names, matches;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (const auto& d : store.Devices()) {
    names.insert(d.name);
    if (d.name == text) return text;
    if (lower(d.name).find(lower(text)) != std::string::npos) matches.insert(d.name);
  }
  if (matches.size() == 1) return *matches.begin();
  if (matches.empty()) {
    throw Error(ErrorCode::kNotFound, "no device '" + text + "' in " + store.path() +
                                          " (devices: " + (names.empty() ? "none" : Joined(names)) +
                                          ")");
  }
  throw Error(ErrorCode::kBadArgument, "device '" + text + "' matches several in " + store.path() +
                                           ": " + Joined(matches) + "; give the whole name");
}

}  // namespace beast::cli
