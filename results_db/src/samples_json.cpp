// Raw timing samples as a JSON array (see samples_json.hpp).
#include "samples_json.hpp"

#include <charconv>
#include <cmath>

namespace results_db::internal {

std::string SamplesToJson(const std::vector<double>& samples) {
  std::string json = "[";
  for (size_t i = 0; i < samples.size(); ++i) {
    if (i > 0) json += ',';
    if (!std::isfinite(samples[i])) {
      json += "null";
      continue;
    }
    char buffer[32];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), samples[i]);
    json.append(buffer, result.ptr);
  }
  json += ']';
  return json;
}

}  // namespace results_db::internal
