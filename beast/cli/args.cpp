// Command-line parsing shared by the verbs (args.hpp).
#include "beast/cli/args.hpp"

#include <cerrno>
#include <cstdlib>

#include <cstdio>

#include "beast/core/error.hpp"
#include "beast/cli/verbs.hpp"

namespace beast::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
           const std::set<std::string>& flags, const std::string& verb)
    : verb_(verb) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    bool inline_value = false;
    auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (flags.count(name)) {
      if (inline_value) throw Error(ErrorCode::kBadArgument, "--" + name + " takes no value");
      flags_.insert(name);
    } else if (value_options.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw Error(ErrorCode::kBadArgument, "--" + name + " needs a value");
        value = argv[++i];
      }
      values_[name].push_back(value);
    } else {
      throw Error(ErrorCode::kBadArgument, "unknown option --" + name + " (see beast " + verb + " --help)");
    }
  }
}

bool Args::Has(const std::string& name) const { return flags_.count(name) || values_.count(name); }

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::Require(const std::string& name) const {
  if (!values_.count(name)) throw Error(ErrorCode::kBadArgument, "--" + name + " is required");
  return Get(name);
}

long Args::GetInt(const std::string& name, long fallback) const {
  if (!values_.count(name)) return fallback;
  std::string text = Get(name);
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno) {
    throw Error(ErrorCode::kBadArgument, "--" + name + " must be an integer, not \"" + text + "\"");
  }
  return v;
}

bool PrintHelpIfAsked(const Argv& args, const char* text) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(text, stdout);
      return true;
    }
  }
  return false;
}

}  // namespace beast::cli
