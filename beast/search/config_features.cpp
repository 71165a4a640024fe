// Features of a config for the cost model (config_features.hpp).
#include "beast/search/config_features.hpp"

#include <algorithm>
#include <cmath>

#include "beast/core/error.hpp"

namespace beast {
namespace {

// Trailing zero bits of an integer value, at most 8 (0 for a float or 0).
float Alignment(const Value& v) {
  if (v.IsFloat() || v.i == 0) return 0;
  const uint64_t magnitude = static_cast<uint64_t>(v.i < 0 ? -v.i : v.i);
  return static_cast<float>(std::min(__builtin_ctzll(magnitude), 8));
}

}  // namespace

ConfigFeatures::ConfigFeatures(const SearchSpace& space)
    : space_(space), params_(space.names().size()) {
  std::vector<double> derived;
  if (space.Size() > 0) space.Derived(space.At(0), &derived);
  width_ = params_ + params_ * (params_ - 1) / 2 + params_ + derived.size();
}

void ConfigFeatures::Append(const Config& config, std::vector<float>* row) const {
  BEAST_CHECK(config.size() == params_);
  const std::vector<Value>& v = config.values();
  const size_t start = row->size();
  for (const Value& x : v) row->push_back(static_cast<float>(x.AsDouble()));
  for (size_t a = 0; a < params_; ++a) {
    for (size_t b = a + 1; b < params_; ++b)
      row->push_back(static_cast<float>(v[a].AsDouble() * v[b].AsDouble()));
  }
  for (const Value& x : v) row->push_back(Alignment(x));
  std::vector<double> derived;
  space_.Derived(config, &derived);
  for (double d : derived) row->push_back(static_cast<float>(d));
  BEAST_CHECK(row->size() - start == width_);
}

}  // namespace beast
