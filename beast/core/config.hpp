// Config: one point of a space — the value of every parameter, in declared
// order — with its canonical text ("MWG=32,NWG=64,...") and a stable hash.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "beast/core/value.hpp"

namespace beast {

class Config {
 public:
  Config() = default;
  Config(std::vector<std::string> names, std::vector<Value> values);

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Value>& values() const { return values_; }
  size_t size() const { return names_.size(); }
  // nullptr when the config has no such parameter.
  const Value* Find(const std::string& name) const;
  // The same point with its parameters in `order`, or nullopt when `order`
  // does not name the same parameters: a template edit, a T1 file or a
  // Kernel Tuner cache may list them in another order.
  std::optional<Config> InOrder(const std::vector<std::string>& order) const;

  std::string Key() const;     // canonical text, the identity in the database
  std::string Hash() const;    // 16 hex digits of FNV-1a 64 over Key()
  std::string ToJson() const;  // {"MWG": 32, ...}

  // Parses Key()'s form back; values are expressions' literal forms.
  static Config ParseKey(const std::string& key);

 private:
  std::vector<std::string> names_;
  std::vector<Value> values_;
};

// FNV-1a 64-bit hash of text, as 16 lowercase hex digits.
std::string HashText(const std::string& text);

}  // namespace beast
