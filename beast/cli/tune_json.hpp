// The JSON summary `beast tune --json` prints: the run, each pair's counts,
// best config, confirmation, baseline and peak share, and the baselines.
#pragma once

#include <nlohmann/json.hpp>

#include "beast/tuner/tuner.hpp"

namespace beast::cli {

nlohmann::ordered_json SummaryJson(const TuneSummary& summary);

}  // namespace beast::cli
