// A bound space as a SearchSpace (bound_search_space.hpp).
#include "beast/search/bound_search_space.hpp"

#include "beast/core/error.hpp"

namespace beast {

BoundSearchSpace::BoundSearchSpace(const BoundSpace& space) : space_(space), size_(space.Count()) {
  for (const ParamSpec& p : space.spec().params) names_.push_back(p.name);
  for (const DerivedSpec& d : space.spec().derived) derived_names_.push_back(d.name);
}

std::optional<uint64_t> BoundSearchSpace::IndexOf(const Config& config) const {
  std::string why;
  if (!space_.Check(config, &why)) return std::nullopt;
  return space_.IndexOf(config);
}

void BoundSearchSpace::Derived(const Config& config, std::vector<double>* out) const {
  const Instance instance = space_.Instantiate(config);
  for (const std::string& name : derived_names_) {
    double value = 0;  // a derived value that reads a launch-time parameter is not rendered
    for (const auto& [var, v] : instance.vars) {
      if (var == name) value = v.AsDouble();
    }
    out->push_back(value);
  }
  for (int d = 0; d < 3; ++d) out->push_back(static_cast<double>(instance.local[d]));
  out->push_back(static_cast<double>(instance.local[0] * instance.local[1] * instance.local[2]));
}

}  // namespace beast
