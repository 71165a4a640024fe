// The trajectory of one (template, problem) pair in a tuning run: its
// strategy's search (search_driver.hpp) fed with what the database knows.
// A config the database already holds (an earlier run's, or another
// device's of the same run) is not measured again: its recorded outcome is
// what the strategy learns. So a killed run, resumed with the same command,
// regenerates the same trajectory through what it recorded and goes on
// where it stopped, and a larger budget extends an earlier run's trajectory.
//
// Several identical devices share a trajectory: the process of shard k of N
// measures the configs at positions k, k+N, ...; when the next position is
// another's, it measures its own configs already proposed beyond it, and
// otherwise waits for the database to hold the other's outcome.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "beast/search/bound_search_space.hpp"
#include "beast/search/search_driver.hpp"
#include "beast/search/strategy.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "results_db/store.hpp"

namespace beast {

class PairTrajectory {
 public:
  using Clock = std::chrono::steady_clock;
  struct Options {
    uint64_t seed = 1;
    uint64_t patience = 0;
    bool transfer = true;
    int shard_index = 0;
    int shard_count = 1;
    // How long a shard waits for another's outcome, with nothing new in the
    // database, before it leaves the rest of the pair to the run's end.
    double shard_wait_seconds = 600;
    // The strategy proposes its next batch when this many proposed configs
    // are left unmeasured (search_driver.hpp): a run that measures many
    // configs at once (mpirun) keeps that many proposed.
    size_t lead = 2;
  };
  PairTrajectory(const PlannedPair& pair, results_db::Store& store, int64_t device_id,
                 int64_t problem_id, int64_t template_id, const Options& options);

  // The next config this process measures; nullopt when the pair ends (its
  // budget spent, no patience left, the space exhausted, `deadline` passed,
  // `stop` set, or another shard's outcome never came).
  std::optional<Config> Next(Clock::time_point deadline, const std::atomic<bool>& stop);
  // The configs this process will measure after Next()'s, as far as the
  // strategy has proposed them, at most `count`.
  std::vector<Config> Ahead(size_t count) const;
  // The outcome of the config Next() returned.
  void Measured(const Config& config, Status status, std::optional<double> median_ms);

  // Configs this run measured before the trajectory (--retry-failed): read
  // back from the database, they are not "already measured" ones.
  void MeasuredBefore(const std::set<std::string>& config_keys) {
    measured_here_.insert(config_keys.begin(), config_keys.end());
  }

  // "default" for the template's default config, else the strategy's name.
  std::string ChosenBy(const Config& config) const;
  uint64_t skipped() const { return skipped_; }
  uint64_t transferred() const { return transferred_; }
  double proposal_seconds() const { return driver_->proposal_seconds(); }

 private:
  bool Mine(size_t position) const;
  // Records the driver's next config from what is known; false when it is
  // not known.
  bool RecordKnown(const Config& next);
  // Reads the pair's outcomes in the database; true when there was news.
  bool Refresh();

  const PlannedPair& pair_;
  results_db::Store& store_;
  int64_t device_id_, problem_id_, template_id_;
  Options options_;
  BoundSearchSpace space_;
  std::unique_ptr<Strategy> strategy_;
  TransferSet transfer_;
  std::unique_ptr<SearchDriver> driver_;
  std::unordered_map<std::string, Trial> known_;  // by config key: recorded outcomes
  std::set<std::string> measured_here_;
  uint64_t skipped_ = 0;
  uint64_t transferred_ = 0;
};

}  // namespace beast
