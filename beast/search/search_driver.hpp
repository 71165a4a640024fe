// SearchDriver: one trajectory of a strategy through a space — what a tuning
// run (and a replay) measures for one (template, problem) pair, config by
// config. It asks the strategy for the next batch when only `lead` proposed
// configs remain unmeasured, from the trials before them, so a compile pool
// builds the next batch while the device measures the last ones, and the
// trajectory is still a function of the seed and the outcomes alone: a
// resumed run regenerates it and finds the first configs in its database.
// It stops at the budget (configs in the trajectory, failures and the first
// config included), when `patience` trials in a row bring no 1% improvement,
// or when the space has nothing left.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

#include "beast/search/strategy.hpp"

namespace beast {

class SearchDriver {
 public:
  struct Options {
    size_t budget = SIZE_MAX;
    std::optional<Config> first;  // measured before anything is proposed (the default)
    size_t patience = 0;          // 0: none
    size_t lead = 2;
  };
  SearchDriver(Strategy& strategy, const SearchSpace& space, Options options,
               const TransferSet* transfer = nullptr);

  // The next config to measure (the same until it is recorded); nullopt
  // when the trajectory ends.
  std::optional<Config> Next();
  // Its place in the trajectory (0: the first config).
  size_t position() const { return history_.size(); }
  // Configs proposed beyond the next one (for a compile pool, or a process
  // that measures its share of the trajectory ahead), in order: the i-th is
  // at position() + 1 + i.
  std::vector<Config> Ahead(size_t count) const;
  // The outcome of the config Next() returned last.
  void Record(Trial trial);

  const History& history() const { return history_; }
  // Whether `config` came from the strategy (false: it was the first config).
  bool Proposed(const Config& config) const;
  bool exhausted() const { return exhausted_; }
  // Seconds spent in the strategy (fitting and proposing).
  double proposal_seconds() const { return proposal_seconds_; }

 private:
  void ProposeIfDue();
  bool Patient() const;

  Strategy& strategy_;
  const SearchSpace& space_;
  Options options_;
  const TransferSet* transfer_;
  std::deque<Config> upcoming_;  // proposed, not measured; front is next
  History history_;
  size_t proposed_ = 0;  // configs in the trajectory so far
  bool awaiting_record_ = false;
  bool exhausted_ = false;  // the strategy had nothing more
  size_t since_improvement_ = 0;
  double best_ms_ = 0;
  double proposal_seconds_ = 0;
};

}  // namespace beast
