// A space of listed configs (listed_search_space.hpp).
#include "beast/search/listed_search_space.hpp"

#include "beast/core/error.hpp"

namespace beast {

ListedSearchSpace::ListedSearchSpace(std::vector<std::string> names, std::vector<Config> configs)
    : names_(std::move(names)), configs_(std::move(configs)) {
  for (uint64_t i = 0; i < configs_.size(); ++i) {
    BEAST_CHECK(configs_[i].names() == names_);
    const bool fresh = index_.emplace(configs_[i].Key(), i).second;
    BEAST_CHECK(fresh);
  }
}

std::optional<uint64_t> ListedSearchSpace::IndexOf(const Config& config) const {
  auto it = index_.find(config.Key());
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

}  // namespace beast
