// Strategy: how a tuning run chooses what to measure next. Given the space,
// the trials so far and the configs already proposed but not measured, it
// proposes the next batch. A strategy is a pure function of its seed and
// what it is given (its randomness is drawn from the seed and the number of
// trials), so a run resumed from its database proposes what the uninterrupted
// run would have, and never a config twice.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "beast/search/search_space.hpp"
#include "beast/search/trial.hpp"

namespace beast {

// At most this many trials of each earlier tuning join a transfer set: a long
// one teaches little more than its first few hundred, and the model's fit
// grows with its rows.
inline constexpr size_t kMaxTransferTrialsPerGroup = 1000;

// Trials of the same template on other problems or devices (transfer), one
// history per (device, problem), each holding only configs that are points
// of this space: the model learns from them before this space has any.
struct TransferSet {
  std::vector<History> groups;
  bool empty() const {
    for (const History& g : groups) {
      if (!g.empty()) return false;
    }
    return true;
  }
  // Whether a history holds a trial that ran ok: one of failures (or of
  // compile-only runs) has no time to learn from.
  static bool Teaches(const History& group) {
    for (const Trial& t : group) {
      if (t.Succeeded()) return true;
    }
    return false;
  }
  bool teaches() const {
    for (const History& g : groups) {
      if (Teaches(g)) return true;
    }
    return false;
  }
};

struct ProposalRequest {
  const SearchSpace& space;
  const History& history;              // measured, in order
  const std::vector<Config>& pending;  // proposed, not measured yet
  size_t batch = 8;                    // at most this many configs
  const TransferSet* transfer = nullptr;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // At most request.batch configs: points of the space, none in the history
  // or pending, none twice; fewer only when the space has no more.
  virtual std::vector<Config> Propose(const ProposalRequest& request) = 0;
  // How many configs it likes to propose at once (a batch the compile pool
  // builds while the device measures the previous one).
  virtual size_t PreferredBatch() const { return 8; }
  // Whether it learns from a transfer set (only then is one gathered).
  virtual bool LearnsFromTransfer() const { return false; }
};

// "model" (the default: a gradient-boosted cost model searched with forced
// exploration), "random" (uniform without replacement), "exhaustive" (the
// space in its order). Throws Error(kBadArgument) naming the known ones for
// any other name.
std::unique_ptr<Strategy> MakeStrategy(const std::string& name, uint64_t seed);
std::vector<std::string> StrategyNames();
inline constexpr const char* kDefaultStrategy = "model";

}  // namespace beast
