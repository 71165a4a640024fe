// Config canonical text, hash and JSON (config.hpp).
#include "beast/core/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "beast/core/error.hpp"

namespace beast {
namespace {

// A value as Value::ToString writes it: True, False, an int, or a float in
// Python's repr (2.5, 1e-05, inf, nan). False when text is none of those.
bool ParseLiteral(const std::string& text, Value* out) {
  if (text == "True" || text == "False") {
    *out = Value::Bool(text == "True");
    return true;
  }
  int64_t i = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, i);
  if (ec == std::errc() && ptr == end) {
    *out = Value::Int(i);
    return true;
  }
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* stop = nullptr;
  double f = std::strtod(text.c_str(), &stop);
  if (stop != text.c_str() + text.size() || text.find_first_of("xXpP") != std::string::npos)
    return false;
  *out = Value::Float(f);
  return true;
}

}  // namespace

Config::Config(std::vector<std::string> names, std::vector<Value> values)
    : names_(std::move(names)), values_(std::move(values)) {
  BEAST_CHECK(names_.size() == values_.size());
}

const Value* Config::Find(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return &values_[i];
  }
  return nullptr;
}

std::optional<Config> Config::InOrder(const std::vector<std::string>& order) const {
  if (order.size() != names_.size()) return std::nullopt;
  std::vector<bool> taken(names_.size(), false);  // a name given twice is not a reordering
  std::vector<Value> values;
  values.reserve(order.size());
  for (const std::string& name : order) {
    const size_t i = std::find(names_.begin(), names_.end(), name) - names_.begin();
    if (i == names_.size() || taken[i]) return std::nullopt;
    taken[i] = true;
    values.push_back(values_[i]);
  }
  return Config(order, std::move(values));
}

std::string Config::Key() const {
  std::string key;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (i) key += ',';
    key += names_[i] + '=' + values_[i].ToString();
  }
  return key;
}

std::string Config::Hash() const { return HashText(Key()); }

std::string Config::ToJson() const {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (size_t i = 0; i < names_.size(); ++i) {
    const Value& v = values_[i];
    switch (v.kind) {
      case Value::Kind::kBool:
        json[names_[i]] = v.i != 0;
        break;
      case Value::Kind::kInt:
        json[names_[i]] = v.i;
        break;
      case Value::Kind::kFloat:
        json[names_[i]] = v.f;
        break;
    }
  }
  return json.dump();
}

Config Config::ParseKey(const std::string& key) {
  std::vector<std::string> names;
  std::vector<Value> values;
  std::stringstream items(key);
  std::string item;
  while (std::getline(items, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorCode::kBadArgument,
                  "config \"" + key + "\": expected NAME=VALUE, got \"" + item + "\"");
    }
    names.push_back(item.substr(0, eq));
    Value value;
    if (!ParseLiteral(item.substr(eq + 1), &value)) {
      throw Error(ErrorCode::kBadArgument,
                  "config \"" + key + "\": value of " + names.back() + " is not a number");
    }
    values.push_back(value);
  }
  return Config(std::move(names), std::move(values));
}

std::string HashText(const std::string& text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace beast
