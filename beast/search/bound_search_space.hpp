// A beast template's bound space as a SearchSpace: points are the configs the
// template's (soft and hard) constraints allow, indexed as BoundSpace walks
// them, and each point's derived values (the space's `derived:` entries and
// launch geometry) are what a cost model reads beside its parameters.
#pragma once

#include "beast/search/search_space.hpp"
#include "beast/space/bound_space.hpp"

namespace beast {

class BoundSearchSpace : public SearchSpace {
 public:
  explicit BoundSearchSpace(const BoundSpace& space);

  const std::vector<std::string>& names() const override { return names_; }
  uint64_t Size() const override { return size_; }
  Config At(uint64_t index) const override { return space_.At(index); }
  std::optional<uint64_t> IndexOf(const Config& config) const override;
  void Derived(const Config& config, std::vector<double>* out) const override;

 private:
  const BoundSpace& space_;
  std::vector<std::string> names_;
  uint64_t size_ = 0;
  std::vector<std::string> derived_names_;  // the space's derived values
};

}  // namespace beast
