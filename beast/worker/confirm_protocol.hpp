// The confirmation of a pair's winner (confirm_measure.hpp) as messages
// between the tuner and its device worker, in the frames of worker_wire.hpp:
//
//   tuner -> worker  kConfirm        the top configs, rendered, and the plan
//   worker -> tuner  kConfirmResult  each one's samples; `worker_exits` when
//                                    the device is unusable after them
//
// Their first bytes are apart from WorkerMessage's, so the worker tells a
// confirmation from its other requests before MessageKind reads them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "beast/core/status.hpp"
#include "harness/measure/launch.hpp"
#include "harness/measure/timing.hpp"

namespace beast {

enum class ConfirmMessage : uint8_t { kConfirm = 50, kConfirmResult = 51 };

struct ConfirmCandidate {
  std::string source;
  std::string kernel_name;
  harness::LaunchGeometry geometry;
  harness::LaunchSequence stages;
};

struct ConfirmRequest {
  std::string problem_key;  // the worker reuses the problem's inputs
  harness::BenchmarkPlan plan;
  std::vector<ConfirmCandidate> candidates;
};

// One candidate's re-measurement.
struct ConfirmResult {
  Status status = Status::kOk;  // why it stopped, if it did
  std::vector<double> samples_ms;
  std::string error_text;
};

bool IsConfirmRequest(const std::string& payload);
std::string EncodeConfirm(const ConfirmRequest& request);
ConfirmRequest DecodeConfirm(const std::string& payload);
std::string EncodeConfirmResults(const std::vector<ConfirmResult>& results, bool worker_exits);
// Throws Error(kInternal, "confirm protocol: ...") for a payload of another
// kind or shape.
std::vector<ConfirmResult> DecodeConfirmResults(const std::string& payload, bool* worker_exits);

}  // namespace beast
