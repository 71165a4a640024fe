// Crash and hang isolation of the device worker, through the beast CLI on the
// OpenCL CPU device: the test template test/faulty has one config per way a
// kernel can fail (a segfault, an endless loop, a wrong answer) beside a
// correct one; the run records each with its status and completes. Ctrl-C and
// kill -9 of the tuner take its worker down with it. Also the worker
// protocol's messages and frames, including broken ones.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <thread>

#include "beast/core/error.hpp"
#include "beast/worker/worker_protocol.hpp"  // private to beast_tuner: the wire format
#include "results_db/store.hpp"
#include "support/command_runner.hpp"
#include "support/process_watch.hpp"

namespace beast {
namespace {

namespace fs = std::filesystem;
using testing::BeastBinary;
using testing::RunCommand;

const char kProblem[] = "gemm:M=16,N=16,K=16";

std::string FaultyArgs(const std::string& db) {
  return " tune --templates " + std::string(BEAST_TEST_SOURCE_DIR) +
         "/tests/data/kernel_templates" + " --template test/faulty --problem " + kProblem +
         " --device opencl:0 --db " + db + " --max-reps 5";
}

// config key -> (status, error text)
std::map<std::string, std::pair<beast::Status, std::string>> Outcomes(const std::string& db) {
  std::map<std::string, std::pair<beast::Status, std::string>> out;
  results_db::Store store = results_db::Store::OpenExisting(db);
  for (const auto& r : store.Query({})) out[r.config_key] = {r.status, r.error_text};
  return out;
}

// Starts beast with `args` (split on spaces), output to `log`, in a process
// group of its own as a shell job would be; returns its pid (= the group id).
pid_t SpawnBeast(const std::string& args, const std::string& log) {
  std::vector<std::string> words = {BeastBinary()};
  for (size_t pos = 0; pos < args.size();) {
    size_t end = args.find(' ', pos);
    if (end == std::string::npos) end = args.size();
    if (end > pos) words.push_back(args.substr(pos, end - pos));
    pos = end + 1;
  }
  return testing::SpawnProcess(words, log, /*own_process_group=*/true);
}

// The `beast worker` child of `parent`, waiting up to `seconds` for it; -1 if none.
pid_t FindWorker(pid_t parent, double seconds) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < give_up) {
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream stat(entry.path() / "stat");
      std::string line;
      std::getline(stat, line);
      size_t close = line.rfind(')');
      if (close == std::string::npos) continue;
      char state;
      long ppid = 0;
      if (std::sscanf(line.c_str() + close + 1, " %c %ld", &state, &ppid) != 2 || ppid != parent)
        continue;
      std::ifstream cmdline(entry.path() / "cmdline");
      std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
      if (args.find(std::string("worker") + '\0' + "--device-index") != std::string::npos)
        return std::stoi(name);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

// True once `pid` is gone (or a zombie nobody reaps: it runs nothing).
bool Gone(pid_t pid, double seconds) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  do {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    size_t close = line.rfind(')');
    if (close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < give_up);
  return false;
}

int WaitExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class Worker : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::FreshTestDir("worker");
    db_ = (dir_ / "beast.db").string();
    log_ = (dir_ / "log.txt").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Log() const {
    std::ifstream in(log_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  fs::path dir_;
  std::string db_, log_;
};

TEST_F(Worker, EachFaultIsRecordedWithItsStatusAndTheRunCompletes) {
  auto r = RunCommand(BeastBinary() + FaultyArgs(db_) + " --quiet --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json summary = testing::JsonOf(r.output);
  EXPECT_EQ(summary["interrupted"], false) << r.output;
  // After the crash, after the crash of its second attempt, after the hang.
  EXPECT_EQ(summary["worker_restarts"], 3) << r.output;
  EXPECT_EQ(summary["pairs"][0]["retried"], 1) << r.output;
  EXPECT_EQ(summary["pairs"][0]["failures"],
            (nlohmann::json{{"crashed", 1}, {"timeout", 1}, {"wrong_result", 1}}))
      << r.output;
  auto outcomes = Outcomes(db_);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(outcomes["MODE=0"].first, beast::Status::kOk) << outcomes["MODE=0"].second;
  EXPECT_EQ(outcomes["MODE=1"].first, beast::Status::kCrashed) << outcomes["MODE=1"].second;
  // A kernel that crashes crashes again in a fresh worker: only then is it its fault.
  EXPECT_EQ(outcomes["MODE=1"].second,
            "twice in a row: the device worker was killed by signal 11 (Segmentation fault) "
            "while running the kernel (first attempt: the device worker was killed by signal 11 "
            "(Segmentation fault) while running the kernel)");
  EXPECT_EQ(outcomes["MODE=2"].first, beast::Status::kTimeout) << outcomes["MODE=2"].second;
  // MODE=0 ran first, so the hang is caught by the limit relative to its time.
  EXPECT_EQ(outcomes["MODE=2"].second.rfind("killed after running for ", 0), 0u)
      << outcomes["MODE=2"].second;
  EXPECT_EQ(outcomes["MODE=3"].first, beast::Status::kWrongResult) << outcomes["MODE=3"].second;

  // A rerun has nothing left to do.
  auto again = RunCommand(BeastBinary() + FaultyArgs(db_) + " --quiet --json", false);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const nlohmann::json pair = testing::JsonOf(again.output)["pairs"][0];
  EXPECT_EQ(pair["measured"], 0) << again.output;
  EXPECT_EQ(pair["skipped"], 4) << again.output;
}

// A kernel that writes into its input A is a wrong result, and the configs
// measured after it, on the same worker and problem, see the inputs they
// should (test/clobber: the default, then both MODE=1 configs, then the
// other MODE=0 one).
TEST_F(Worker, AKernelThatWritesIntoItsInputIsWrongAndTheNextOnesAreNot) {
  auto r = RunCommand(BeastBinary() + " tune --templates " + std::string(BEAST_TEST_SOURCE_DIR) +
                          "/tests/data/kernel_templates --template test/clobber --problem " +
                          kProblem + " --device opencl:0 --db " + db_ +
                          " --strategy exhaustive --max-reps 3 --compile-jobs 0 --quiet",
                      false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto outcomes = Outcomes(db_);
  ASSERT_EQ(outcomes.size(), 4u);
  for (const char* ok : {"MODE=0,V=0", "MODE=0,V=1"})
    EXPECT_EQ(outcomes[ok].first, beast::Status::kOk) << ok << ": " << outcomes[ok].second;
  for (const char* wrong : {"MODE=1,V=0", "MODE=1,V=1"}) {
    EXPECT_EQ(outcomes[wrong].first, beast::Status::kWrongResult) << wrong;
    EXPECT_EQ(outcomes[wrong].second.rfind("it wrote into its input A", 0), 0u)
        << wrong << ": " << outcomes[wrong].second;
  }
}

TEST_F(Worker, WithoutABestTimeTheAbsoluteLimitStopsAHang) {
  // Only MODE=2 is left (the default MODE=0 does not fit): nothing ran ok, so
  // only --timeout-seconds bounds it.
  auto start = std::chrono::steady_clock::now();
  auto r = RunCommand(BeastBinary() + FaultyArgs(db_) +
                      " --constraint \"hard: MODE == 2\" --timeout-seconds 2 --quiet");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto outcomes = Outcomes(db_);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes["MODE=2"].first, beast::Status::kTimeout);
  EXPECT_EQ(outcomes["MODE=2"].second.rfind("killed after 2.", 0), 0u) << outcomes["MODE=2"].second;
  EXPECT_NE(outcomes["MODE=2"].second.find("past the limit of 2 s per config (--timeout-seconds)"),
            std::string::npos);
  EXPECT_LT(seconds, 30.0);
}

// Making a problem's inputs and reference on the host is the problem's work,
// not its first config's: at 1536^3 it takes about 2.5 s here, longer than
// the 2 s limit, and the config (MODE=1, whose build takes about 0.5 s and
// whose first launch crashes the worker) is still recorded for what it did,
// in both of its attempts (each in a fresh worker that makes the problem
// again). Before, both attempts were `timeout`.
TEST_F(Worker, TheProblemsSetupDoesNotCountAgainstTheConfigsLimit) {
  auto r = RunCommand(BeastBinary() + " tune --templates " + std::string(BEAST_TEST_SOURCE_DIR) +
                      "/tests/data/kernel_templates --template test/faulty --problem "
                      "gemm:M=1536,N=1536,K=1536 --device opencl:0 --db " +
                      db_ +
                      " --constraint \"hard: MODE == 1\" --timeout-seconds 2 --baselines none "
                      "--confirm-top 0 --compile-jobs 0 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto outcomes = Outcomes(db_);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes["MODE=1"].first, beast::Status::kCrashed) << outcomes["MODE=1"].second;
}

TEST_F(Worker, CtrlCStopsAtOnceAndTakesTheWorkerDown) {
  pid_t beast =
      SpawnBeast(FaultyArgs(db_) + " --constraint hard:MODE==2 --timeout-seconds 60", log_);
  pid_t worker = FindWorker(beast, 20);
  ASSERT_GT(worker, 0) << Log();
  std::this_thread::sleep_for(
      std::chrono::milliseconds(1500));  // the worker is in the endless kernel
  auto sent = std::chrono::steady_clock::now();
  kill(-beast, SIGINT);  // to the whole job, as Ctrl-C on a terminal: the worker ignores it
  EXPECT_EQ(WaitExit(beast), 130) << Log();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count(), 5.0);
  EXPECT_TRUE(Gone(worker, 5)) << "worker " << worker << " outlived the tuner";
  EXPECT_NE(Log().find("run interrupted, run the same command again to resume"), std::string::npos)
      << Log();
  EXPECT_TRUE(Outcomes(db_).empty());  // the config in flight stays unmeasured
}

TEST_F(Worker, KillingTheTunerKillsItsWorker) {
  pid_t beast =
      SpawnBeast(FaultyArgs(db_) + " --constraint hard:MODE==2 --timeout-seconds 60", log_);
  pid_t worker = FindWorker(beast, 20);
  ASSERT_GT(worker, 0) << Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  kill(beast, SIGKILL);
  EXPECT_EQ(WaitExit(beast), 128 + SIGKILL);
  EXPECT_TRUE(Gone(worker, 5)) << "worker " << worker << " outlived the tuner";
}

TEST(WorkerProtocol, MessagesRoundTrip) {
  MeasureRequest q;
  q.problem_key = "gemm:M=16,N=16,K=16,transA=0,transB=0,dtype=f32";
  q.source = std::string("kernel void k() {}\n\0tail", 24);
  q.kernel_name = "k";
  q.geometry.dims = 3;
  q.geometry.global[0] = 16;
  q.geometry.global[1] = 1ull << 33;
  q.geometry.local[2] = 7;
  q.geometry.dynamic_local_bytes = 0;
  q.geometry.shared_carveout = 100;
  q.plan.warmup = 1;
  q.plan.min_reps = 2;
  q.plan.max_reps = 9;
  q.plan.max_seconds = 0.25;
  q.plan.target_rel_ci = 0.125;
  MeasureRequest r = DecodeMeasure(EncodeMeasure(q));
  EXPECT_EQ(r.problem_key, q.problem_key);
  EXPECT_EQ(r.source, q.source);
  EXPECT_EQ(r.kernel_name, "k");
  EXPECT_EQ(r.geometry.dims, 3);
  EXPECT_EQ(r.geometry.global[0], 16u);
  EXPECT_EQ(r.geometry.global[1], 1ull << 33);
  EXPECT_EQ(r.geometry.local[2], 7u);
  EXPECT_EQ(r.geometry.dynamic_local_bytes, 0);
  EXPECT_EQ(r.geometry.shared_carveout, 100);
  EXPECT_EQ(r.plan.warmup, 1);
  EXPECT_EQ(r.plan.min_reps, 2);
  EXPECT_EQ(r.plan.max_reps, 9);
  EXPECT_EQ(r.plan.max_seconds, 0.25);
  EXPECT_EQ(r.plan.target_rel_ci, 0.125);
  EXPECT_FALSE(r.await_verdict);
  q.await_verdict = true;
  EXPECT_TRUE(DecodeMeasure(EncodeMeasure(q)).await_verdict);

  Outcome o;
  o.status = beast::Status::kWrongResult;
  o.samples_ms = {1.5, 0.25};
  o.median_ms = 0.875;
  o.max_error = std::numeric_limits<double>::infinity();
  o.error_text = "3 of 4 outputs wrong";
  o.build_log = "warning: unused";
  o.first_launch_seconds = 0.5;
  o.benchmark_seconds = 2.0;
  o.resources.stack_bytes = 0;
  o.resources.shared_bytes = 4096;
  bool exits = false;
  Outcome back = DecodeOutcome(EncodeOutcome(o, true), &exits);
  EXPECT_TRUE(exits);
  EXPECT_EQ(back.status, beast::Status::kWrongResult);
  EXPECT_EQ(back.samples_ms, (std::vector<double>{1.5, 0.25}));
  EXPECT_EQ(back.median_ms, 0.875);
  EXPECT_FALSE(back.spread.has_value());
  EXPECT_FALSE(back.compile_ms.has_value());
  EXPECT_EQ(back.max_error, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back.error_text, "3 of 4 outputs wrong");
  EXPECT_EQ(back.build_log, "warning: unused");
  EXPECT_EQ(back.first_launch_seconds, 0.5);
  EXPECT_EQ(back.benchmark_seconds, 2.0);
  EXPECT_FALSE(back.resources.registers.has_value());
  EXPECT_FALSE(back.resources.spill_bytes.has_value());
  EXPECT_EQ(back.resources.stack_bytes, 0);
  EXPECT_EQ(back.resources.shared_bytes, 4096);

  WorkerReady ready = DecodeReady(EncodeReady({kWorkerProtocolVersion, "pthread"}));
  EXPECT_EQ(ready.protocol_version, kWorkerProtocolVersion);
  EXPECT_EQ(ready.device_name, "pthread");
  BuiltReport built;
  built.compile_ms = 12.5;
  built.resources.registers = 40;
  built.resources.shared_bytes = 1024;
  BuiltReport built_back = DecodeBuilt(EncodeBuilt(built));
  EXPECT_EQ(built_back.compile_ms, 12.5);
  EXPECT_EQ(built_back.resources.registers, 40);
  EXPECT_FALSE(built_back.resources.stack_bytes.has_value());
  EXPECT_EQ(built_back.resources.shared_bytes, 1024);
  EXPECT_EQ(DecodeProblemReady(EncodeProblemReady(2.25)), 2.25);
  EXPECT_EQ(MessageKind(EncodeProblemReady(0)), WorkerMessage::kProblemReady);
  EXPECT_EQ(DecodeVerdict(EncodeVerdict(std::nullopt)), std::nullopt);
  EXPECT_EQ(DecodeVerdict(EncodeVerdict(std::string("violates hard constraint"))),
            std::optional<std::string>("violates hard constraint"));
  EXPECT_EQ(DecodeFatal(EncodeFatal("no device")), "no device");
}

void ExpectProtocolError(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternal);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(WorkerProtocol, BaselineAndPeakMessagesRoundTrip) {
  BaselineRequest q;
  q.problem_key = "gemm:M=16,N=16,K=16,transA=0,transB=0,dtype=f32";
  q.library = "clblast";
  q.plan.warmup = 3;
  q.plan.max_reps = 11;
  q.plan.target_rel_ci = 0.25;
  BaselineRequest rq = DecodeBaseline(EncodeBaseline(q));
  EXPECT_EQ(rq.problem_key, q.problem_key);
  EXPECT_EQ(rq.library, "clblast");
  EXPECT_EQ(rq.plan.warmup, 3);
  EXPECT_EQ(rq.plan.max_reps, 11);
  EXPECT_EQ(rq.plan.target_rel_ci, 0.25);

  harness::BaselineResult b;
  b.status = beast::Status::kWrongResult;
  b.routine = "Convgemm";
  b.samples_ms = {1.5, 2.25};
  b.median_ms = 1.875;
  b.max_error = 3.5;
  b.last_command_median_ms = 1.25;
  b.error_text = "1 of 4 outputs wrong";
  bool exits = false;
  harness::BaselineResult rb = DecodeBaselineResult(EncodeBaselineResult(b, true), &exits);
  EXPECT_TRUE(exits);
  EXPECT_EQ(rb.status, beast::Status::kWrongResult);
  EXPECT_EQ(rb.routine, "Convgemm");
  EXPECT_EQ(rb.samples_ms, b.samples_ms);
  EXPECT_EQ(rb.median_ms, 1.875);
  EXPECT_FALSE(rb.spread.has_value());
  EXPECT_EQ(rb.max_error, 3.5);
  EXPECT_FALSE(rb.first_call_ms.has_value());
  EXPECT_EQ(rb.last_command_median_ms, 1.25);
  EXPECT_EQ(rb.error_text, b.error_text);

  PeakRequest peak_request;
  peak_request.plan.min_reps = 4;
  peak_request.fp64 = true;
  peak_request.tensor_inputs = (1 << harness::kTensorBf16) | (1 << harness::kTensorTf32);
  const PeakRequest decoded = DecodePeak(EncodePeak(peak_request));
  EXPECT_EQ(decoded.plan.min_reps, 4);
  EXPECT_TRUE(decoded.fp64);
  EXPECT_EQ(decoded.tensor_inputs, 6);
  harness::PeakFlopsResult p;
  p.ok = true;
  p.gflops = 191.5;
  p.median_ms = 5.25;
  p.spread = 0.125;
  p.variant = "chains=12 local=8 groups=32";
  p.fp64 = {true, 95.5, "chains=8 local=8 groups=32", ""};
  p.tensor[harness::kTensorF16] = {false, 0, "", "not measured: the run has no f16 problem"};
  p.tensor[harness::kTensorBf16] = {true, 612000.5, "chains=8 block=128 blocks=528", ""};
  p.tensor[harness::kTensorTf32] = {true, 301000.25, "chains=4 block=256 blocks=264", ""};
  harness::PeakFlopsResult rp = DecodePeakResult(EncodePeakResult(p, false), &exits);
  EXPECT_FALSE(exits);
  EXPECT_TRUE(rp.ok);
  EXPECT_EQ(rp.gflops, 191.5);
  EXPECT_EQ(rp.median_ms, 5.25);
  EXPECT_EQ(rp.spread, 0.125);
  EXPECT_EQ(rp.variant, p.variant);
  EXPECT_EQ(rp.error, "");
  EXPECT_TRUE(rp.fp64.ok);
  EXPECT_EQ(rp.fp64.gflops, 95.5);
  EXPECT_EQ(rp.fp64.variant, p.fp64.variant);
  EXPECT_EQ(rp.fp64.error, "");
  for (int i = 0; i < harness::kTensorInputs; ++i) {
    EXPECT_EQ(rp.tensor[i].ok, p.tensor[i].ok) << i;
    EXPECT_EQ(rp.tensor[i].gflops, p.tensor[i].gflops) << i;
    EXPECT_EQ(rp.tensor[i].variant, p.tensor[i].variant) << i;
    EXPECT_EQ(rp.tensor[i].error, p.tensor[i].error) << i;
  }
}

TEST(WorkerProtocol, BrokenMessagesAreRefused) {
  std::string outcome = EncodeOutcome(Outcome{}, false);
  ExpectProtocolError([&] { DecodeOutcome(outcome.substr(0, outcome.size() - 1), nullptr); },
                      "worker protocol: a message ended early");
  ExpectProtocolError([&] { DecodeOutcome(outcome + "x", nullptr); },
                      "worker protocol: a message has 1 extra bytes");
  ExpectProtocolError([&] { DecodeMeasure(outcome); },
                      "worker protocol: message 5 where 3 was expected");
  ExpectProtocolError([&] { MessageKind(std::string(1, '\x0c')); },
                      "worker protocol: unknown message 12");
  ExpectProtocolError([&] { MessageKind(""); }, "worker protocol: an empty message");
  std::string fatal = EncodeFatal("abc");
  fatal[1] = '\x7f';  // the string's length now runs past the message
  ExpectProtocolError([&] { DecodeFatal(fatal); },
                      "worker protocol: a string overruns its message");
}

TEST(WorkerProtocol, FramesArriveWholeWhateverTheChunks) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  ASSERT_TRUE(WriteFrame(sv[0], "first", deadline));
  ASSERT_TRUE(WriteFrame(sv[0], "", deadline));
  ASSERT_TRUE(WriteFrame(sv[0], std::string(100000, 'z'), deadline));
  // The worker's blocking reader takes the first frame whole.
  std::string payload;
  ASSERT_TRUE(ReadFrame(sv[1], &payload));
  EXPECT_EQ(payload, "first");
  // The tuner's buffer, fed one byte at a time, hands out the rest in order.
  FrameBuffer frames;
  std::vector<std::string> got;
  char byte;
  for (size_t i = 0; i < 4 + 4 + 100000; ++i) {
    ASSERT_EQ(read(sv[1], &byte, 1), 1);
    frames.Append(&byte, 1);
    while (frames.Next(&payload)) got.push_back(payload);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "");
  EXPECT_EQ(got[1], std::string(100000, 'z'));
  // A stream that ends inside a frame is an error; at a boundary it is the end.
  ASSERT_EQ(write(sv[0], "\x05\0\0\0ab", 6), 6);
  close(sv[0]);
  ExpectProtocolError([&] { ReadFrame(sv[1], &payload); },
                      "worker protocol: the stream ended inside a frame");
  EXPECT_FALSE(ReadFrame(sv[1], &payload));
  close(sv[1]);
  FrameBuffer corrupt;
  corrupt.Append("\xff\xff\xff\xff", 4);
  ExpectProtocolError([&] { corrupt.Next(&payload); },
                      "worker protocol: a frame announces 4294967295 bytes");
}

}  // namespace
}  // namespace beast
