// A trial: one config measured, as a search strategy learns from it — its
// status and, when it ran ok, its time. A history is the trials of one
// (device, problem, template) in the order they were measured.
#pragma once

#include <optional>
#include <vector>

#include "beast/core/config.hpp"
#include "beast/core/status.hpp"

namespace beast {

struct Trial {
  Config config;
  Status status = Status::kOk;
  std::optional<double> ms;  // set when status is ok (or compiled: none)

  bool Succeeded() const { return status == Status::kOk && ms && *ms > 0; }
};

using History = std::vector<Trial>;

}  // namespace beast
