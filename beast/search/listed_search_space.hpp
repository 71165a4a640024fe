// A SearchSpace of listed points: the configs of a recorded space (a Kernel
// Tuner cache, a space beast measured whole), in the order given.
#pragma once

#include <string>
#include <unordered_map>

#include "beast/search/search_space.hpp"

namespace beast {

class ListedSearchSpace : public SearchSpace {
 public:
  // Every config carries `names` in that order; no config twice.
  ListedSearchSpace(std::vector<std::string> names, std::vector<Config> configs);

  const std::vector<std::string>& names() const override { return names_; }
  uint64_t Size() const override { return configs_.size(); }
  Config At(uint64_t index) const override { return configs_.at(index); }
  std::optional<uint64_t> IndexOf(const Config& config) const override;

 private:
  std::vector<std::string> names_;
  std::vector<Config> configs_;
  std::unordered_map<std::string, uint64_t> index_;  // by Config::Key()
};

}  // namespace beast
