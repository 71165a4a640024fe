// YamlReader: reads beast's YAML files (space descriptions, constraint sets,
// device spec tables) with one-line errors "FILE:LINE: what is wrong".
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "beast/core/error.hpp"
#include "beast/core/source_location.hpp"

namespace beast {

class YamlReader {
 public:
  explicit YamlReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const YAML::Node& node, const std::string& why) const {
    int line = node.IsDefined() ? node.Mark().line + 1 : 0;
    throw Error(ErrorCode::kBadInput, path_ + ":" + std::to_string(line) + ": " + why);
  }
  SourceLocation Where(const YAML::Node& node) const { return {path_, node.Mark().line + 1}; }

  std::string Scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) Fail(node, what + " must be a single value");
    return node.Scalar();
  }

  // A list ("layouts: [NCHW, NHWC]"): a mapping or a single value there
  // would be read as no item, or fail inside yaml-cpp without a line.
  YAML::Node Sequence(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence()) Fail(node, what + " must be a list ([A, B])");
    return node;
  }

  void CheckKeys(const YAML::Node& map, const std::set<std::string>& allowed,
                 const std::string& what) const {
    if (!map.IsMap()) Fail(map, what + " must be a mapping of KEY: VALUE");
    std::set<std::string> seen;
    for (const auto& item : map) {
      std::string key = item.first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        Fail(item.first, "unknown key \"" + key + "\" in " + what + " (allowed: " + list + ")");
      }
      // yaml-cpp keeps both and map[key] reads the first: the second would
      // be ignored without a word.
      if (!seen.insert(key).second) Fail(item.first, "\"" + key + "\" given twice in " + what);
    }
  }

  YAML::Node Required(const YAML::Node& map, const std::string& key,
                      const std::string& what) const {
    YAML::Node node = map[key];
    if (!node.IsDefined() || node.IsNull()) Fail(map, what + " lacks \"" + key + "\"");
    return node;
  }

 private:
  std::string path_;
};

}  // namespace beast
