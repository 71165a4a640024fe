// A device's share of a multi-device run (tune_share.hpp).
#include "beast/tuner/tune_share.hpp"

#include <algorithm>

#include "beast/core/error.hpp"
#include "beast/worker/worker_wire.hpp"

namespace beast {
namespace {

constexpr uint8_t kShareTag = 60;  // apart from every worker message

}  // namespace

std::string EncodeShare(const TuneSummary& s) {
  WireWriter w;
  w.U8(kShareTag);
  w.F64(s.compile_seconds);
  w.F64(s.first_launch_seconds);
  w.F64(s.benchmark_seconds);
  w.F64(s.compile_wait_seconds);
  w.F64(s.proposal_seconds);
  w.I64(s.worker_restarts);
  w.I64(static_cast<int64_t>(s.programs_compiled));
  w.I64(static_cast<int64_t>(s.programs_from_cache));
  w.U8(s.interrupted);
  w.I64(static_cast<int64_t>(s.pairs.size()));
  for (const PairSummary& p : s.pairs) {
    w.Str(p.template_name);
    w.Str(p.problem_key);
    w.I64(static_cast<int64_t>(p.measured));
    w.F64(p.seconds);
    w.I64(static_cast<int64_t>(p.failed));
    w.I64(static_cast<int64_t>(p.retried));
    w.I64(static_cast<int64_t>(p.remeasured));
    w.I64(static_cast<int64_t>(p.recovered));
    w.I64(static_cast<int64_t>(p.failures.size()));
    for (const auto& [status, n] : p.failures) {
      w.StatusCode(status);
      w.I64(static_cast<int64_t>(n));
    }
  }
  return w.bytes();
}

TuneSummary DecodeShare(const std::string& payload) {
  WireReader r(payload);
  if (r.U8() != kShareTag)
    throw Error(ErrorCode::kInternal, "a device's share of the run is not one");
  TuneSummary s;
  s.compile_seconds = r.F64();
  s.first_launch_seconds = r.F64();
  s.benchmark_seconds = r.F64();
  s.compile_wait_seconds = r.F64();
  s.proposal_seconds = r.F64();
  s.worker_restarts = static_cast<int>(r.I64());
  s.programs_compiled = static_cast<uint64_t>(r.I64());
  s.programs_from_cache = static_cast<uint64_t>(r.I64());
  s.interrupted = r.U8() != 0;
  const int64_t pairs = r.I64();
  if (pairs < 0 || pairs > 1000000)
    throw Error(ErrorCode::kInternal, "a device's share names " + std::to_string(pairs) + " pairs");
  for (int64_t i = 0; i < pairs; ++i) {
    PairSummary p;
    p.template_name = r.Str();
    p.problem_key = r.Str();
    p.measured = static_cast<uint64_t>(r.I64());
    p.seconds = r.F64();
    p.failed = static_cast<uint64_t>(r.I64());
    p.retried = static_cast<uint64_t>(r.I64());
    p.remeasured = static_cast<uint64_t>(r.I64());
    p.recovered = static_cast<uint64_t>(r.I64());
    const int64_t statuses = r.I64();
    for (int64_t k = 0; k < statuses && k < 64; ++k) {
      const Status status = r.StatusCode();
      p.failures[status] = static_cast<uint64_t>(r.I64());
    }
    s.pairs.push_back(std::move(p));
  }
  r.ExpectEnd();
  return s;
}

void AddShare(const TuneSummary& share, TuneSummary* group) {
  group->compile_seconds += share.compile_seconds;
  group->first_launch_seconds += share.first_launch_seconds;
  group->benchmark_seconds += share.benchmark_seconds;
  group->compile_wait_seconds += share.compile_wait_seconds;
  group->proposal_seconds += share.proposal_seconds;
  group->worker_restarts += share.worker_restarts;
  group->programs_compiled += share.programs_compiled;
  group->programs_from_cache += share.programs_from_cache;
  for (const PairSummary& from : share.pairs) {
    for (PairSummary& to : group->pairs) {
      if (to.template_name != from.template_name || to.problem_key != from.problem_key) continue;
      to.measured += from.measured;
      to.seconds = std::max(to.seconds, from.seconds);  // the devices worked at once
      to.skipped = to.skipped >= from.measured ? to.skipped - from.measured : 0;
      to.failed += from.failed;
      to.retried += from.retried;
      to.remeasured += from.remeasured;
      to.recovered += from.recovered;
      for (const auto& [status, n] : from.failures) to.failures[status] += n;
    }
  }
}

}  // namespace beast
