// Status names of measurements, baselines and runs, as the schema's CHECK constraints
// list them.
#include "results_db/records.hpp"

namespace results_db {

bool IsMeasurementStatus(const std::string& status) {
  for (const char* name : kMeasurementStatuses) {
    if (status == name) return true;
  }
  return false;
}

bool IsBaselineStatus(const std::string& status) {
  for (const char* name : kBaselineStatuses) {
    if (status == name) return true;
  }
  return false;
}

bool IsRunStatus(const std::string& status) {
  for (const char* name : kRunStatuses) {
    if (status == name) return true;
  }
  return false;
}

}  // namespace results_db
