// Raw timing samples as the JSON array stored in measurements.samples_json.
#pragma once

#include <string>
#include <vector>

namespace results_db::internal {

// "[1.25,1.5]": each number in the shortest form that reads back exactly; a
// non-finite sample (JSON has no NaN) is written as null.
std::string SamplesToJson(const std::vector<double>& samples);

}  // namespace results_db::internal
