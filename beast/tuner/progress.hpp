// Progress of a tuning run on stderr: on a terminal a live line with a bar,
// rewritten in place; otherwise a plain line every few seconds — the pair
// being tuned, configs done/total over the whole run (resumed ones counted),
// the rate and ETA, failures by status, and the pair's best so far (in a
// compile-only run: the fewest registers a compiled config uses). A ticker
// thread redraws it while one config takes long, so the time figures move.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "beast/core/status.hpp"

namespace beast {

class Progress {
 public:
  // total: the configs the run selected over all its pairs.
  // A non-empty label forces plain lines, each starting with "[label] ".
  // plain_seconds: how often a plain line comes.
  Progress(bool enabled, uint64_t total, bool compile_only = false, std::string label = "",
           double plain_seconds = 10.0);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // A new (template, problem) pair: `label` says which ("[1/2] gemm/tiled"),
  // `problem` is its key, of `flops` per run; best_ms < 0 when it has no ok
  // config yet.
  void StartPair(std::string label, std::string problem, double flops, double best_ms,
                 double best_gflops);
  // `count` configs found already measured in the database.
  void Skipped(uint64_t count);
  // One config measured now (compile-only: compiled now), with its median
  // when it ran ok and its registers when it compiled: the pair's best so
  // far follows (compile-only: the fewest registers of its compiled configs).
  void Done(Status status, std::optional<double> median_ms, std::optional<int64_t> registers);
  // The run's time budget ends then (--time-budget): the ETA is never later.
  void SetDeadline(std::chrono::steady_clock::time_point deadline);
  // Ends the live line (when not on a terminal, a last line unless the last
  // one printed already shows the final state), and the ticker.
  void Finish();

 private:
  void Print(bool force);  // the caller holds mutex_
  std::string Line() const;
  void Tick();  // the ticker thread
  void StopTicker();
  bool enabled_;
  bool tty_;
  bool compile_only_;
  std::string prefix_;  // "[label] ", or empty
  int64_t fewest_registers_ = -1;
  std::string label_, problem_;
  uint64_t total_, done_ = 0, skipped_ = 0, measured_ = 0, failed_ = 0;
  std::map<Status, uint64_t> failures_;
  double flops_ = 0, best_ms_ = -1, best_gflops_ = 0;
  bool printed_ = false;
  // Counts of what changed the line (pairs started, configs done) and what
  // the last printed line showed: the last plain line is not printed twice.
  uint64_t changes_ = 0, printed_changes_ = 0;
  bool finished_ = false;
  double plain_seconds_;
  std::chrono::steady_clock::time_point start_, last_print_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  std::mutex mutex_;  // every member above, between the caller and the ticker
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace beast
