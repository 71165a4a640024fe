// The default strategy: a gradient-boosted cost model (cost_model.hpp) on
// the configs' features (config_features.hpp), searched with exploration
// forced into every batch.
//
// First an initial design: configs from a random pool chosen so that every
// value of every parameter appears as soon as it can (the model then sees
// each value before it has to judge it). Then each batch is:
//   - the best-predicted configs one parameter away from the best measured
//     ones (the optimum is often a neighbour of a good config);
//   - the best-predicted configs at least two parameters away from all of
//     them (another basin: a space whose typical configs mislead, as when an
//     option helps the average and hurts the best, is escaped only there);
//   - one uniformly random config;
//   - the rest best-predicted anywhere, each at least two parameters from
//     the others of the batch.
// The model is trained on log time clipped at a quantile of the times so far
// (failures just above the clip): its splits then tell good from best
// instead of bad from terrible. Failed configs teach it where not to go and
// never count as a best. With a transfer set (trials of the template on
// other problems or devices), those join the training data, each history's
// times relative to its own clip, and the search starts from the model at
// once: the best of them and their neighbours are among the candidates;
// once as many of the problem's own trials ran ok as the initial design
// holds, the model learns from those alone and the transferred configs stop
// being candidates.
#pragma once

#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "beast/search/strategy.hpp"

namespace beast {

// The few settings of the model strategy, one for every space. They were
// chosen by replaying the three shared convolution caches and checked on
// recorded spaces of other kernels and GPUs (README, "Search").
struct ModelSettings {
  // Configs of the initial design: about two per value of a typical
  // parameter, so the first model has seen each value. None with transfer:
  // the trials of other problems stand in for it, until as many of the
  // problem's own ran ok.
  size_t initial = 16;
  // Configs per proposal: what a compile pool builds while the device
  // measures the previous batch.
  size_t batch = 8;
  size_t local = 3;         // per batch: best-predicted neighbours of the best measured
  size_t distant = 2;       // per batch: best-predicted configs away from all of them
  size_t distant_from = 2;  // parameters apart that count as away
  size_t random = 1;        // per batch: uniformly random (exploration the model cannot veto)
  size_t best_count = 5;    // "the best measured" configs
  // The model learns log time clipped at this quantile of the times so far:
  // its splits then tell good from best instead of bad from terrible.
  double clip_quantile = 0.25;
  size_t score_all_below = 20000;  // spaces this small are scored whole
  size_t pool = 4096;              // else a random pool of this many, plus neighbours
};

class ModelStrategy : public Strategy {
 public:
  explicit ModelStrategy(uint64_t seed, ModelSettings settings = ModelSettings());

  std::vector<Config> Propose(const ProposalRequest& request) override;
  size_t PreferredBatch() const override { return settings_.batch; }
  bool LearnsFromTransfer() const override { return true; }

 private:
  std::vector<Config> ProposeFromModel(const ProposalRequest& request,
                                       std::unordered_set<std::string>& taken, size_t done);
  // The configs the model judges: every point not taken in a small space,
  // else a random pool and the neighbours of the best measured configs.
  std::vector<Config> Candidates(const ProposalRequest& request,
                                 const std::unordered_set<std::string>& taken,
                                 std::mt19937_64& rng);
  // The batch, from the candidates in predicted order (see the top).
  std::vector<Config> Pick(const ProposalRequest& request, const std::vector<Config>& candidates,
                           const std::vector<size_t>& order, std::mt19937_64& rng) const;

  uint64_t seed_;
  ModelSettings settings_;
  // Every point of a space small enough to score whole, listed once.
  const SearchSpace* listed_space_ = nullptr;
  std::vector<Config> all_points_;
};

}  // namespace beast
