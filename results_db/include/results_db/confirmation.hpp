// A confirmation of a pair's winner: the interleaved re-measurement of the
// top configs of one (device, problem, template version), as the tuner
// records it and the store reads it back (schema version 4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "beast/core/status.hpp"

namespace results_db {

// One config of a confirmation.
struct ConfirmationResult {
  int64_t config_id = 0;
  std::string config_key;                     // read back only
  beast::Status status = beast::Status::kOk;  // IsConfirmationStatus
  std::vector<double> samples_ms;             // written; one per round
  std::string samples_json;                   // read back
  std::optional<double> median_ms;
  std::optional<double> spread;
  std::string error_text;
};

struct Confirmation {
  int64_t id = 0;  // read back only
  int64_t run_id = 0;
  int64_t device_id = 0;
  int64_t problem_id = 0;
  int64_t template_id = 0;
  std::vector<ConfirmationResult> results;  // read back ordered by config id
};

}  // namespace results_db
