// Args: the small command-line parser every verb uses — flags, options that
// take a value (repeatable), positional arguments — with one-line errors.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace beast::cli {

class Args {
 public:
  // value_options take a value ("--db FILE" or "--db=FILE"); flags do not.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
       const std::set<std::string>& flags, const std::string& verb);

  bool Has(const std::string& name) const;
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> GetAll(const std::string& name) const;
  // Throws Error(kBadArgument) "beast VERB: --NAME is required".
  std::string Require(const std::string& name) const;
  long GetInt(const std::string& name, long fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::string verb_;
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

}  // namespace beast::cli
