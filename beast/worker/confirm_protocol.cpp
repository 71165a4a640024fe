// Encoding and decoding of the confirmation messages (confirm_protocol.hpp).
#include "beast/worker/confirm_protocol.hpp"

#include "beast/core/error.hpp"
#include "beast/worker/launch_wire.hpp"
#include "beast/worker/worker_wire.hpp"

namespace beast {
namespace {

WireReader Open(const std::string& payload, ConfirmMessage expected) {
  if (payload.empty() || static_cast<uint8_t>(payload[0]) != static_cast<uint8_t>(expected)) {
    throw Error(ErrorCode::kInternal,
                "confirm protocol: message " +
                    (payload.empty() ? std::string("(empty)")
                                     : std::to_string(static_cast<uint8_t>(payload[0]))) +
                    " where " + std::to_string(static_cast<int>(expected)) + " was expected");
  }
  WireReader r(payload);
  r.U8();
  return r;
}

// Far more than any confirmation compares; a larger count is a corrupt frame.
constexpr int64_t kMaxCandidates = 1000;

int64_t Count(WireReader& r) {
  int64_t n = r.I64();
  if (n < 0 || n > kMaxCandidates)
    throw Error(ErrorCode::kInternal, "confirm protocol: " + std::to_string(n) + " candidates");
  return n;
}

}  // namespace

bool IsConfirmRequest(const std::string& payload) {
  return !payload.empty() &&
         static_cast<uint8_t>(payload[0]) == static_cast<uint8_t>(ConfirmMessage::kConfirm);
}

std::string EncodeConfirm(const ConfirmRequest& q) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(ConfirmMessage::kConfirm));
  w.Str(q.problem_key);
  w.I64(q.plan.warmup);
  w.I64(q.plan.min_reps);
  w.I64(q.plan.max_reps);
  w.F64(q.plan.max_seconds);
  w.F64(q.plan.target_rel_ci);
  w.U8(q.plan.flush_cache);
  w.I64(static_cast<int64_t>(q.candidates.size()));
  for (const ConfirmCandidate& c : q.candidates) {
    w.Str(c.source);
    w.Str(c.kernel_name);
    WriteGeometry(w, c.geometry);
    WriteSequence(w, c.stages);
  }
  return w.bytes();
}

ConfirmRequest DecodeConfirm(const std::string& payload) {
  WireReader r = Open(payload, ConfirmMessage::kConfirm);
  ConfirmRequest q;
  q.problem_key = r.Str();
  q.plan.warmup = static_cast<int>(r.I64());
  q.plan.min_reps = static_cast<int>(r.I64());
  q.plan.max_reps = static_cast<int>(r.I64());
  q.plan.max_seconds = r.F64();
  q.plan.target_rel_ci = r.F64();
  q.plan.flush_cache = r.U8() != 0;
  int64_t n = Count(r);
  for (int64_t i = 0; i < n; ++i) {
    ConfirmCandidate c;
    c.source = r.Str();
    c.kernel_name = r.Str();
    c.geometry = ReadGeometry(r);
    c.stages = ReadSequence(r);
    q.candidates.push_back(std::move(c));
  }
  r.ExpectEnd();
  return q;
}

std::string EncodeConfirmResults(const std::vector<ConfirmResult>& results, bool worker_exits) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(ConfirmMessage::kConfirmResult));
  w.U8(worker_exits);
  w.I64(static_cast<int64_t>(results.size()));
  for (const ConfirmResult& c : results) {
    w.StatusCode(c.status);
    w.F64s(c.samples_ms);
    w.Str(c.error_text);
  }
  return w.bytes();
}

std::vector<ConfirmResult> DecodeConfirmResults(const std::string& payload, bool* worker_exits) {
  WireReader r = Open(payload, ConfirmMessage::kConfirmResult);
  bool exits = r.U8() != 0;
  if (worker_exits) *worker_exits = exits;
  int64_t n = Count(r);
  std::vector<ConfirmResult> results;
  for (int64_t i = 0; i < n; ++i) {
    ConfirmResult c;
    c.status = r.StatusCode();
    c.samples_ms = r.F64s();
    c.error_text = r.Str();
    results.push_back(std::move(c));
  }
  r.ExpectEnd();
  return results;
}

}  // namespace beast
