// Raw timing samples as a JSON array (see samples_json.hpp).
#include "samples_json.hpp"

#include <nlohmann/json.hpp>

namespace results_db::internal {

std::string SamplesToJson(const std::vector<double>& samples) {
  return nlohmann::json(samples).dump();  // shortest round-trip digits; NaN -> null
}

}  // namespace results_db::internal
