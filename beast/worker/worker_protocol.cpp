// Encoding and decoding of the worker messages (worker_protocol.hpp).
#include "beast/worker/worker_protocol.hpp"

#include "beast/core/error.hpp"
#include "beast/worker/launch_wire.hpp"

namespace beast {
namespace {

WireReader Open(const std::string& payload, WorkerMessage expected) {
  if (MessageKind(payload) != expected) {
    throw Error(ErrorCode::kInternal, "worker protocol: message " + std::to_string(payload[0]) +
                                          " where " + std::to_string(static_cast<int>(expected)) +
                                          " was expected");
  }
  WireReader r(payload);
  r.U8();
  return r;
}

WireWriter Start(WorkerMessage kind) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(kind));
  return w;
}

void WritePlan(WireWriter& w, const harness::BenchmarkPlan& plan) {
  w.I64(plan.warmup);
  w.I64(plan.min_reps);
  w.I64(plan.max_reps);
  w.F64(plan.max_seconds);
  w.F64(plan.target_rel_ci);
  w.F64(plan.best_ms);
  w.I64(plan.loser_reps);
  w.F64(plan.loser_factor);
  w.U8(plan.flush_cache);
}

void WriteOptI64(WireWriter& w, const std::optional<int64_t>& v) {
  w.U8(v.has_value());
  w.I64(v.value_or(0));
}

std::optional<int64_t> ReadOptI64(WireReader& r) {
  bool has = r.U8() != 0;
  int64_t v = r.I64();
  return has ? std::optional<int64_t>(v) : std::nullopt;
}

void WriteResources(WireWriter& w, const CompiledResources& res) {
  WriteOptI64(w, res.registers);
  WriteOptI64(w, res.spill_bytes);
  WriteOptI64(w, res.stack_bytes);
  WriteOptI64(w, res.shared_bytes);
}

CompiledResources ReadResources(WireReader& r) {
  CompiledResources res;
  res.registers = ReadOptI64(r);
  res.spill_bytes = ReadOptI64(r);
  res.stack_bytes = ReadOptI64(r);
  res.shared_bytes = ReadOptI64(r);
  return res;
}

harness::BenchmarkPlan ReadPlan(WireReader& r) {
  harness::BenchmarkPlan plan;
  plan.warmup = static_cast<int>(r.I64());
  plan.min_reps = static_cast<int>(r.I64());
  plan.max_reps = static_cast<int>(r.I64());
  plan.max_seconds = r.F64();
  plan.target_rel_ci = r.F64();
  plan.best_ms = r.F64();
  plan.loser_reps = static_cast<int>(r.I64());
  plan.loser_factor = r.F64();
  plan.flush_cache = r.U8() != 0;
  return plan;
}

}  // namespace

WorkerMessage MessageKind(const std::string& payload) {
  if (payload.empty()) throw Error(ErrorCode::kInternal, "worker protocol: an empty message");
  auto kind = static_cast<uint8_t>(payload[0]);
  if (kind < static_cast<uint8_t>(WorkerMessage::kReady) ||
      kind > static_cast<uint8_t>(WorkerMessage::kProblemReady)) {
    throw Error(ErrorCode::kInternal, "worker protocol: unknown message " + std::to_string(kind));
  }
  return static_cast<WorkerMessage>(kind);
}

std::string EncodeReady(const WorkerReady& ready) {
  WireWriter w = Start(WorkerMessage::kReady);
  w.I64(ready.protocol_version);
  w.Str(ready.device_name);
  return w.bytes();
}

WorkerReady DecodeReady(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kReady);
  WorkerReady ready;
  ready.protocol_version = r.I64();
  ready.device_name = r.Str();
  r.ExpectEnd();
  return ready;
}

std::string EncodeFatal(const std::string& message) {
  WireWriter w = Start(WorkerMessage::kFatal);
  w.Str(message);
  return w.bytes();
}

std::string DecodeFatal(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kFatal);
  std::string message = r.Str();
  r.ExpectEnd();
  return message;
}

std::string EncodeMeasure(const MeasureRequest& q) {
  WireWriter w = Start(WorkerMessage::kMeasure);
  w.Str(q.problem_key);
  w.Str(q.source);
  w.Str(q.kernel_name);
  WriteGeometry(w, q.geometry);
  WriteSequence(w, q.stages);
  WritePlan(w, q.plan);
  w.U8(q.await_verdict);
  w.I64(q.winograd_tile);
  return w.bytes();
}

MeasureRequest DecodeMeasure(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kMeasure);
  MeasureRequest q;
  q.problem_key = r.Str();
  q.source = r.Str();
  q.kernel_name = r.Str();
  q.geometry = ReadGeometry(r);
  q.stages = ReadSequence(r);
  q.plan = ReadPlan(r);
  q.await_verdict = r.U8() != 0;
  q.winograd_tile = static_cast<int>(r.I64());
  r.ExpectEnd();
  return q;
}

std::string EncodeProblemReady(double setup_seconds) {
  WireWriter w = Start(WorkerMessage::kProblemReady);
  w.F64(setup_seconds);
  return w.bytes();
}

double DecodeProblemReady(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kProblemReady);
  const double seconds = r.F64();
  r.ExpectEnd();
  return seconds;
}

std::string EncodeBuilt(const BuiltReport& built) {
  WireWriter w = Start(WorkerMessage::kBuilt);
  w.F64(built.compile_ms);
  WriteResources(w, built.resources);
  return w.bytes();
}

BuiltReport DecodeBuilt(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kBuilt);
  BuiltReport built;
  built.compile_ms = r.F64();
  built.resources = ReadResources(r);
  r.ExpectEnd();
  return built;
}

std::string EncodeVerdict(const std::optional<std::string>& prune_reason) {
  WireWriter w = Start(WorkerMessage::kVerdict);
  w.U8(prune_reason.has_value());
  w.Str(prune_reason.value_or(""));
  return w.bytes();
}

std::optional<std::string> DecodeVerdict(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kVerdict);
  bool prune = r.U8() != 0;
  std::string reason = r.Str();
  r.ExpectEnd();
  return prune ? std::optional<std::string>(reason) : std::nullopt;
}

std::string EncodeOutcome(const Outcome& o, bool worker_exits) {
  WireWriter w = Start(WorkerMessage::kOutcome);
  w.U8(worker_exits);
  w.StatusCode(o.status);
  w.F64s(o.samples_ms);
  w.OptF64(o.median_ms);
  w.OptF64(o.spread);
  w.OptF64(o.max_error);
  w.OptF64(o.compile_ms);
  w.OptF64(o.prepare_ms);
  w.Str(o.error_text);
  w.Str(o.build_log);
  WriteResources(w, o.resources);
  w.F64(o.first_launch_seconds);
  w.F64(o.benchmark_seconds);
  w.U8(o.from_cache);
  return w.bytes();
}

Outcome DecodeOutcome(const std::string& payload, bool* worker_exits) {
  WireReader r = Open(payload, WorkerMessage::kOutcome);
  Outcome o;
  bool exits = r.U8() != 0;
  if (worker_exits) *worker_exits = exits;
  o.status = r.StatusCode();
  o.samples_ms = r.F64s();
  o.median_ms = r.OptF64();
  o.spread = r.OptF64();
  o.max_error = r.OptF64();
  o.compile_ms = r.OptF64();
  o.prepare_ms = r.OptF64();
  o.error_text = r.Str();
  o.build_log = r.Str();
  o.resources = ReadResources(r);
  o.first_launch_seconds = r.F64();
  o.benchmark_seconds = r.F64();
  o.from_cache = r.U8() != 0;
  r.ExpectEnd();
  return o;
}

std::string EncodeBaseline(const BaselineRequest& q) {
  WireWriter w = Start(WorkerMessage::kBaseline);
  w.Str(q.problem_key);
  w.Str(q.library);
  WritePlan(w, q.plan);
  return w.bytes();
}

BaselineRequest DecodeBaseline(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kBaseline);
  BaselineRequest q;
  q.problem_key = r.Str();
  q.library = r.Str();
  q.plan = ReadPlan(r);
  r.ExpectEnd();
  return q;
}

std::string EncodeBaselineResult(const harness::BaselineResult& b, bool worker_exits) {
  WireWriter w = Start(WorkerMessage::kBaselineResult);
  w.U8(worker_exits);
  w.StatusCode(b.status);
  w.Str(b.routine);
  w.F64s(b.samples_ms);
  w.OptF64(b.median_ms);
  w.OptF64(b.spread);
  w.OptF64(b.max_error);
  w.OptF64(b.first_call_ms);
  w.OptF64(b.last_command_median_ms);
  w.Str(b.error_text);
  w.Str(b.detail);
  return w.bytes();
}

harness::BaselineResult DecodeBaselineResult(const std::string& payload, bool* worker_exits) {
  WireReader r = Open(payload, WorkerMessage::kBaselineResult);
  harness::BaselineResult b;
  bool exits = r.U8() != 0;
  if (worker_exits) *worker_exits = exits;
  b.status = r.StatusCode();
  b.routine = r.Str();
  b.samples_ms = r.F64s();
  b.median_ms = r.OptF64();
  b.spread = r.OptF64();
  b.max_error = r.OptF64();
  b.first_call_ms = r.OptF64();
  b.last_command_median_ms = r.OptF64();
  b.error_text = r.Str();
  b.detail = r.Str();
  r.ExpectEnd();
  return b;
}

std::string EncodePeak(const PeakRequest& request) {
  WireWriter w = Start(WorkerMessage::kPeak);
  WritePlan(w, request.plan);
  w.U8(request.fp64);
  w.U8(static_cast<uint8_t>(request.tensor_inputs));
  return w.bytes();
}

PeakRequest DecodePeak(const std::string& payload) {
  WireReader r = Open(payload, WorkerMessage::kPeak);
  PeakRequest request;
  request.plan = ReadPlan(r);
  request.fp64 = r.U8() != 0;
  request.tensor_inputs = r.U8();
  r.ExpectEnd();
  return request;
}

std::string EncodePeakResult(const harness::PeakFlopsResult& p, bool worker_exits) {
  WireWriter w = Start(WorkerMessage::kPeakResult);
  w.U8(worker_exits);
  w.U8(p.ok);
  w.F64(p.gflops);
  w.F64(p.median_ms);
  w.F64(p.spread);
  w.Str(p.variant);
  w.Str(p.error);
  w.Str(p.method);
  w.U8(p.bandwidth.ok);
  w.F64(p.bandwidth.gbs);
  w.Str(p.bandwidth.variant);
  w.Str(p.bandwidth.error);
  w.Str(p.bandwidth.method);
  for (const harness::PeakFlopsResult::OtherPeak* other :
       {&p.fp64, &p.tensor[0], &p.tensor[1], &p.tensor[2]}) {
    w.U8(other->ok);
    w.F64(other->gflops);
    w.Str(other->variant);
    w.Str(other->error);
  }
  return w.bytes();
}

harness::PeakFlopsResult DecodePeakResult(const std::string& payload, bool* worker_exits) {
  WireReader r = Open(payload, WorkerMessage::kPeakResult);
  harness::PeakFlopsResult p;
  bool exits = r.U8() != 0;
  if (worker_exits) *worker_exits = exits;
  p.ok = r.U8() != 0;
  p.gflops = r.F64();
  p.median_ms = r.F64();
  p.spread = r.F64();
  p.variant = r.Str();
  p.error = r.Str();
  p.method = r.Str();
  p.bandwidth.ok = r.U8() != 0;
  p.bandwidth.gbs = r.F64();
  p.bandwidth.variant = r.Str();
  p.bandwidth.error = r.Str();
  p.bandwidth.method = r.Str();
  for (harness::PeakFlopsResult::OtherPeak* other :
       {&p.fp64, &p.tensor[0], &p.tensor[1], &p.tensor[2]}) {
    other->ok = r.U8() != 0;
    other->gflops = r.F64();
    other->variant = r.Str();
    other->error = r.Str();
  }
  r.ExpectEnd();
  return p;
}

}  // namespace beast
