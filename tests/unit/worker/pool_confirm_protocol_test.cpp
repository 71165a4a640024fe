// The compile pool's and the confirmation's messages: every field comes back
// as sent, a message of another kind or cut short is refused, and the first
// bytes keep them apart from the device worker's own messages; an outcome
// carries whether its program came from the program cache.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "beast/compile/compile_protocol.hpp"
#include "beast/core/error.hpp"
#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/worker_protocol.hpp"

namespace beast {
namespace {

harness::LaunchGeometry Geometry() {
  harness::LaunchGeometry g;
  g.dims = 2;
  g.global[0] = 512;
  g.global[1] = 64;
  g.local[0] = 16;
  g.local[1] = 4;
  g.dynamic_local_bytes = 4096;
  g.shared_carveout = 75;
  return g;
}

// Two kernels launched before the main one, and their workspace.
harness::LaunchSequence Stages() {
  harness::LaunchSequence s;
  harness::StageLaunch first{"k_filter", Geometry()};
  harness::StageLaunch second{"k_input", harness::LaunchGeometry{}};
  second.geometry.global[0] = 96;
  s.before = {first, second};
  s.workspace_bytes = int64_t{1} << 33;
  return s;
}

void ExpectStages(const harness::LaunchSequence& s) {
  ASSERT_EQ(s.before.size(), 2u);
  EXPECT_EQ(s.before[0].kernel, "k_filter");
  EXPECT_EQ(s.before[0].geometry.global[1], 64u);
  EXPECT_EQ(s.before[0].geometry.dynamic_local_bytes, 4096);
  EXPECT_EQ(s.before[1].kernel, "k_input");
  EXPECT_EQ(s.before[1].geometry.global[0], 96u);
  EXPECT_EQ(s.workspace_bytes, int64_t{1} << 33);
}

TEST(CompileProtocol, RequestAndReplyRoundTrip) {
  CompileRequest q{"gemm:M=8,N=8,K=8", "__kernel void k() {}\n", "k", Geometry(), Stages(), true};
  CompileRequest back = DecodeCompile(EncodeCompile(q));
  EXPECT_EQ(back.problem_key, q.problem_key);
  EXPECT_EQ(back.source, q.source);
  EXPECT_EQ(back.kernel_name, "k");
  EXPECT_EQ(back.geometry.dims, 2);
  EXPECT_EQ(back.geometry.global[0], 512u);
  EXPECT_EQ(back.geometry.global[1], 64u);
  EXPECT_EQ(back.geometry.local[0], 16u);
  EXPECT_EQ(back.geometry.dynamic_local_bytes, 4096);
  EXPECT_EQ(back.geometry.shared_carveout, 75);
  EXPECT_EQ(back.geometry.local[1], 4u);
  ExpectStages(back.stages);
  EXPECT_TRUE(back.warm);

  for (auto result : {CompileReply::Result::kCached, CompileReply::Result::kCompiled,
                      CompileReply::Result::kNotStored}) {
    CompileReply reply{result, true, 123.5, 7.25};
    CompileReply r = DecodeCompiled(EncodeCompiled(reply));
    EXPECT_EQ(r.result, result);
    EXPECT_TRUE(r.built);
    EXPECT_EQ(r.compile_ms, 123.5);
    EXPECT_EQ(r.warm_ms, 7.25);
  }
}

TEST(CompileProtocol, OtherOrBrokenMessagesAreRefused) {
  CompileReply reply;
  std::string payload = EncodeCompiled(reply);
  EXPECT_THROW(DecodeCompile(payload), Error);
  EXPECT_THROW(DecodeCompiled(payload.substr(0, payload.size() - 1)), Error);
  EXPECT_THROW(DecodeCompiled(payload + "x"), Error);
  std::string unknown = payload;
  unknown[1] = 9;  // no such result
  EXPECT_THROW(DecodeCompiled(unknown), Error);
  EXPECT_THROW(DecodeCompiled(""), Error);
  // A device worker's message is not a compile reply, nor the other way.
  EXPECT_THROW(DecodeCompiled(EncodeFatal("no device")), Error);
  EXPECT_THROW(MessageKind(EncodeCompile(CompileRequest{})), Error);
}

TEST(ConfirmProtocol, RequestAndResultsRoundTrip) {
  ConfirmRequest q;
  q.problem_key = "gemm:M=8,N=8,K=8";
  q.plan.warmup = 1;
  q.plan.min_reps = 4;
  q.plan.max_reps = 9;
  q.plan.max_seconds = 1.5;
  q.plan.target_rel_ci = 0.03;
  q.candidates = {{"src a", "ka", Geometry(), Stages()},
                  {"src b", "kb", harness::LaunchGeometry{}, harness::LaunchSequence{}}};
  std::string payload = EncodeConfirm(q);
  EXPECT_TRUE(IsConfirmRequest(payload));
  ConfirmRequest back = DecodeConfirm(payload);
  EXPECT_EQ(back.problem_key, q.problem_key);
  EXPECT_EQ(back.plan.warmup, 1);
  EXPECT_EQ(back.plan.min_reps, 4);
  EXPECT_EQ(back.plan.max_reps, 9);
  EXPECT_EQ(back.plan.max_seconds, 1.5);
  EXPECT_EQ(back.plan.target_rel_ci, 0.03);
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_EQ(back.candidates[0].source, "src a");
  EXPECT_EQ(back.candidates[0].kernel_name, "ka");
  EXPECT_EQ(back.candidates[0].geometry.local[1], 4u);
  EXPECT_EQ(back.candidates[0].geometry.dynamic_local_bytes, 4096);
  EXPECT_EQ(back.candidates[0].geometry.shared_carveout, 75);
  EXPECT_EQ(back.candidates[1].geometry.dynamic_local_bytes, -1);
  EXPECT_EQ(back.candidates[1].geometry.shared_carveout, -1);
  EXPECT_EQ(back.candidates[1].kernel_name, "kb");
  EXPECT_EQ(back.candidates[1].geometry.dims, 1);
  ExpectStages(back.candidates[0].stages);
  EXPECT_TRUE(back.candidates[1].stages.before.empty());
  EXPECT_EQ(back.candidates[1].stages.workspace_bytes, 0);

  std::vector<ConfirmResult> results(2);
  results[0].samples_ms = {1.5, 1.25, 1.75};
  results[1].status = beast::Status::kRuntimeError;
  results[1].error_text = "launch failed";
  bool exits = false;
  std::vector<ConfirmResult> r = DecodeConfirmResults(EncodeConfirmResults(results, true), &exits);
  EXPECT_TRUE(exits);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].status, beast::Status::kOk);
  EXPECT_EQ(r[0].samples_ms, (std::vector<double>{1.5, 1.25, 1.75}));
  EXPECT_EQ(r[1].status, beast::Status::kRuntimeError);
  EXPECT_EQ(r[1].error_text, "launch failed");
  EXPECT_TRUE(r[1].samples_ms.empty());
}

TEST(ConfirmProtocol, OtherOrBrokenMessagesAreRefused) {
  std::string payload = EncodeConfirm(ConfirmRequest{});
  EXPECT_THROW(DecodeConfirmResults(payload, nullptr), Error);
  EXPECT_THROW(DecodeConfirm(payload.substr(0, payload.size() - 1)), Error);
  std::string results = EncodeConfirmResults({}, false);
  EXPECT_FALSE(IsConfirmRequest(results));
  EXPECT_THROW(DecodeConfirm(results), Error);
  // A negative or absurd candidate count is a corrupt frame.
  std::string absurd = payload;
  for (size_t i = payload.size() - 8; i < payload.size(); ++i) absurd[i] = '\xff';
  EXPECT_THROW(DecodeConfirm(absurd), Error);
  // The device worker's messages are none of these.
  EXPECT_FALSE(IsConfirmRequest(EncodeFatal("x")));
  EXPECT_FALSE(IsConfirmRequest(""));
  EXPECT_THROW(MessageKind(payload), Error);
}

TEST(WorkerProtocolCache, AnOutcomeSaysWhetherItsProgramCameFromTheCache) {
  for (bool from_cache : {false, true}) {
    Outcome o;
    o.compile_ms = 40.5;
    o.from_cache = from_cache;
    Outcome back = DecodeOutcome(EncodeOutcome(o, false), nullptr);
    EXPECT_EQ(back.from_cache, from_cache);
    EXPECT_EQ(back.compile_ms, 40.5);
  }
}

}  // namespace
}  // namespace beast
