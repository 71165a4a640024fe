// The messages between the coordinator and the device ranks
// (cluster_protocol.hpp).
#include "beast/cluster/cluster_protocol.hpp"

#include "beast/core/error.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "beast/worker/worker_wire.hpp"

namespace beast {
namespace {

WireWriter Start(ClusterMessage kind) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(kind));
  return w;
}

// A reader past the kind byte; throws for a payload of another kind.
WireReader Open(const std::string& payload, ClusterMessage kind) {
  if (ClusterKind(payload) != kind)
    throw Error(ErrorCode::kInternal, "a message of the MPI run is not of the kind expected");
  WireReader r(payload);
  r.U8();
  return r;
}

void WriteDevice(WireWriter& w, const DeviceInfo& d) {
  w.U8(static_cast<uint8_t>(d.backend));
  w.I64(d.index);
  w.Str(d.name);
  w.Str(d.vendor);
  w.Str(d.driver_version);
  w.Str(d.arch);
  w.Str(DeviceLimitsToJson(d.limits));
  w.Str(d.compiler);
  w.Str(d.compiler_version);
}

DeviceInfo ReadDevice(WireReader& r) {
  DeviceInfo d;
  const uint8_t backend = r.U8();
  if (backend > static_cast<uint8_t>(Backend::kCuda))
    throw Error(ErrorCode::kInternal, "a rank names an unknown backend");
  d.backend = static_cast<Backend>(backend);
  d.index = static_cast<int>(r.I64());
  d.name = r.Str();
  d.vendor = r.Str();
  d.driver_version = r.Str();
  d.arch = r.Str();
  d.limits = DeviceLimitsFromJson(r.Str());
  d.compiler = r.Str();
  d.compiler_version = r.Str();
  return d;
}

}  // namespace

ClusterMessage ClusterKind(const std::string& payload) {
  const uint8_t first = payload.empty() ? 0 : static_cast<uint8_t>(payload[0]);
  if (first < static_cast<uint8_t>(ClusterMessage::kHello) ||
      first > static_cast<uint8_t>(ClusterMessage::kBye))
    throw Error(ErrorCode::kInternal, "a message of the MPI run is of no known kind");
  return static_cast<ClusterMessage>(first);
}

std::string EncodeHello(const RankHello& h) {
  WireWriter w = Start(ClusterMessage::kHello);
  WriteDevice(w, h.device);
  w.Str(h.host);
  w.Str(h.peak);
  w.I64(h.slots);
  w.I64(h.compile_jobs);
  w.Str(h.plan);
  return w.bytes();
}

RankHello DecodeHello(const std::string& payload) {
  WireReader r = Open(payload, ClusterMessage::kHello);
  RankHello h;
  h.device = ReadDevice(r);
  h.host = r.Str();
  h.peak = r.Str();
  h.slots = r.I64();
  h.compile_jobs = r.I64();
  h.plan = r.Str();
  r.ExpectEnd();
  if (h.slots < 1) throw Error(ErrorCode::kInternal, "a rank offers no slot");
  return h;
}

std::string EncodeClusterFatal(const std::string& message) {
  WireWriter w = Start(ClusterMessage::kFatal);
  w.Str(message);
  return w.bytes();
}

std::string DecodeClusterFatal(const std::string& payload) {
  WireReader r = Open(payload, ClusterMessage::kFatal);
  std::string message = r.Str();
  r.ExpectEnd();
  return message;
}

std::string EncodeMeasureTask(const MeasureTask& t) {
  WireWriter w = Start(ClusterMessage::kMeasure);
  w.I64(t.pair);
  w.Str(t.config_key);
  w.OptF64(t.best_ms);
  return w.bytes();
}

MeasureTask DecodeMeasureTask(const std::string& payload) {
  WireReader r = Open(payload, ClusterMessage::kMeasure);
  MeasureTask t;
  t.pair = r.I64();
  t.config_key = r.Str();
  t.best_ms = r.OptF64();
  r.ExpectEnd();
  return t;
}

std::string EncodeMeasuredTask(const MeasuredTask& t) {
  WireWriter w = Start(ClusterMessage::kOutcome);
  w.I64(t.pair);
  w.Str(t.config_key);
  w.Str(EncodeOutcome(t.outcome, false));
  w.I64(t.outcome.attempts);  // the tuner's side sets it, not the worker's payload
  return w.bytes();
}

MeasuredTask DecodeMeasuredTask(const std::string& payload) {
  WireReader r = Open(payload, ClusterMessage::kOutcome);
  MeasuredTask t;
  t.pair = r.I64();
  t.config_key = r.Str();
  t.outcome = DecodeOutcome(r.Str(), nullptr);
  t.outcome.attempts = static_cast<int>(r.I64());
  r.ExpectEnd();
  return t;
}

std::string EncodeWrapped(ClusterMessage kind, const std::string& inner, const std::string& routine,
                          double timeout_seconds) {
  WireWriter w = Start(kind);
  w.Str(inner);
  w.Str(routine);
  w.F64(timeout_seconds);
  return w.bytes();
}

Wrapped DecodeWrapped(ClusterMessage kind, const std::string& payload) {
  WireReader r = Open(payload, kind);
  Wrapped out;
  out.inner = r.Str();
  out.routine = r.Str();
  out.timeout_seconds = r.F64();
  r.ExpectEnd();
  return out;
}

std::string EncodeDone() { return Start(ClusterMessage::kDone).bytes(); }

std::string EncodeBye(bool stopped) {
  WireWriter w = Start(ClusterMessage::kBye);
  w.U8(stopped);
  return w.bytes();
}

bool DecodeBye(const std::string& payload) {
  WireReader r = Open(payload, ClusterMessage::kBye);
  const bool stopped = r.U8() != 0;
  r.ExpectEnd();
  return stopped;
}

}  // namespace beast
