// A recorded space: every config of a space measured once, with what came of
// it — the ground truth a strategy is replayed against offline. Read from a
// Kernel Tuner cache file (.json or .json.gz, also one a killed run left
// without its closing braces), or built from a beast database.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "beast/search/listed_search_space.hpp"
#include "beast/search/trial.hpp"

namespace beast {

struct RecordedSpace {
  std::string source;  // what it was read from, for messages and --json
  std::vector<std::string> names;
  std::vector<Config> configs;
  std::vector<Trial> outcomes;  // per config: ok with its time, or its failure
  // Per config, when the source records them (a Kernel Tuner cache does):
  // what building it and measuring it took, in ms; empty when unknown.
  struct Cost {
    double compile_ms = 0, run_ms = 0;
  };
  std::vector<Cost> costs;

  // The fastest successful time; throws Error(kBadInput) naming the source
  // when no config succeeded.
  double OptimumMs() const;
  ListedSearchSpace Space() const { return ListedSearchSpace(names, configs); }
  // Whether `order` names the same parameters, in any order.
  bool SameParameters(const std::vector<std::string>& order) const;
  // The same space with its parameters in `order` (SameParameters): a T1
  // file or another cache may list them otherwise, and a config's key
  // follows its parameters' order.
  RecordedSpace InOrder(const std::vector<std::string>& order) const;
};

// Reads a Kernel Tuner cache. A config's value is its recorded "time" (ms);
// an error string (InvalidConfig, CompilationFailedConfig,
// RuntimeFailedConfig) is a failed measurement. Its costs are
// "compile_time" and "benchmark_time" + "verification_time" when every entry
// has them. Throws Error(kNotFound) for a
// file that cannot be read, Error(kBadInput) naming the file for one that is
// not a Kernel Tuner cache (or has a string-valued parameter).
RecordedSpace ReadKernelTunerCache(const std::string& path);

}  // namespace beast
