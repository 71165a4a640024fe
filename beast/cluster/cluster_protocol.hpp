// The messages of a tuning run under mpirun between the coordinator (rank 0)
// and the device ranks. Each is one MPI message whose bytes are a
// worker_wire payload starting with its kind; what a device worker already
// sends over its socket (outcomes, baseline and confirmation requests and
// results, the peak) travels inside unchanged, encoded by worker_protocol.
//
//   rank -> coordinator  kHello          the rank's device, host, peak, slots, plan
//   rank -> coordinator  kFatal          why the rank cannot serve (one line)
//   coordinator -> rank  kMeasure        measure config C of pair P
//   rank -> coordinator  kOutcome        its outcome
//   coordinator -> rank  kBaseline       a vendor routine on a problem
//   rank -> coordinator  kBaselineResult
//   coordinator -> rank  kConfirm        re-measure a pair's top configs
//   rank -> coordinator  kConfirmResult
//   coordinator -> rank  kDone           nothing more: report and leave
//   rank -> coordinator  kShare          what the rank spent (tune_share.hpp)
//   rank -> coordinator  kBye            the rank leaves (after its share)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "beast/problem/device.hpp"
#include "beast/worker/instance_measure.hpp"

namespace beast {

enum class ClusterMessage : uint8_t {
  kHello = 80,  // apart from the worker's and the share's tags
  kFatal,
  kMeasure,
  kOutcome,
  kBaseline,
  kBaselineResult,
  kConfirm,
  kConfirmResult,
  kDone,
  kShare,
  kBye,
};

struct RankHello {
  DeviceInfo device;
  std::string host;
  std::string peak;  // EncodePeakResult's payload (worker_protocol.hpp)
  // How many configs the rank takes at once: one measured, the others built
  // ahead by its compile pool.
  int64_t slots = 1;
  int64_t compile_jobs = 0;  // its compile pool's workers (0: none)
  // The rank's plan of the run (templates, their hashes, problems): equal to
  // the coordinator's, or the ranks run other templates.
  std::string plan;
};

struct MeasureTask {
  int64_t pair = 0;  // in the plan of the rank's device
  std::string config_key;
  std::optional<double> best_ms;  // the problem's best on the device so far
};

struct MeasuredTask {
  int64_t pair = 0;
  std::string config_key;
  Outcome outcome;
};

// A payload's kind; throws Error(kInternal) for one that is none.
ClusterMessage ClusterKind(const std::string& payload);

std::string EncodeHello(const RankHello& hello);
RankHello DecodeHello(const std::string& payload);
std::string EncodeClusterFatal(const std::string& message);
std::string DecodeClusterFatal(const std::string& payload);
std::string EncodeMeasureTask(const MeasureTask& task);
MeasureTask DecodeMeasureTask(const std::string& payload);
std::string EncodeMeasuredTask(const MeasuredTask& task);
MeasuredTask DecodeMeasuredTask(const std::string& payload);
// A kBaseline, kBaselineResult, kConfirm, kConfirmResult or kShare: a
// worker_protocol (or share) payload, with the routine name and time limit
// where the request has them.
std::string EncodeWrapped(ClusterMessage kind, const std::string& inner,
                          const std::string& routine = "", double timeout_seconds = 0);
struct Wrapped {
  std::string inner, routine;
  double timeout_seconds = 0;
};
Wrapped DecodeWrapped(ClusterMessage kind, const std::string& payload);
// kDone; kBye (whether the rank stopped for a signal).
std::string EncodeDone();
std::string EncodeBye(bool stopped);
bool DecodeBye(const std::string& payload);

}  // namespace beast
