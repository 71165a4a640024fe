// The model-guided strategy (model_strategy.hpp).
#include "beast/search/model_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <unordered_set>

#include "beast/search/config_features.hpp"
#include "beast/search/cost_model.hpp"
#include "beast/search/initial_design.hpp"
#include "beast/search/permutation.hpp"
#include "beast/search/space_walk.hpp"

namespace beast {
namespace {

size_t Distance(const Config& a, const Config& b) {
  size_t d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += !a.values()[i].Equals(b.values()[i]);
  return d;
}

size_t DistanceToAll(const Config& c, const std::vector<const Config*>& others) {
  size_t d = SIZE_MAX;
  for (const Config* o : others) d = std::min(d, Distance(c, *o));
  return d;
}

// The model's target for each trial of `history`, appended to *y: log time
// clipped at the quantile of the history's times, less that clip (so
// histories of different problems share one scale: 0 is "at the clip"), and
// failures just above it.
void AppendTargets(const History& history, double quantile, std::vector<float>* y) {
  std::vector<double> logs;
  for (const Trial& t : history) {
    if (t.Succeeded()) logs.push_back(std::log(*t.ms));
  }
  std::sort(logs.begin(), logs.end());
  const double cap =
      logs.empty() ? 0.0
                   : logs[static_cast<size_t>(quantile * static_cast<double>(logs.size() - 1))];
  for (const Trial& t : history)
    y->push_back(static_cast<float>(t.Succeeded() ? std::min(std::log(*t.ms), cap) - cap : 0.1));
}

}  // namespace

ModelStrategy::ModelStrategy(uint64_t seed, ModelSettings settings)
    : seed_(seed), settings_(settings) {}

std::vector<Config> ModelStrategy::Propose(const ProposalRequest& r) {
  const size_t done = r.history.size() + r.pending.size();
  std::unordered_set<std::string> taken;
  for (const Trial& t : r.history) taken.insert(t.config.Key());
  for (const Config& c : r.pending) taken.insert(c.Key());
  const size_t successes = static_cast<size_t>(std::count_if(
      r.history.begin(), r.history.end(), [](const Trial& t) { return t.Succeeded(); }));
  // The initial design until it is measured (and while nothing ran ok),
  // unless trials of other problems that ran ok stand in for it.
  const bool warm = r.transfer && r.transfer->teaches();
  if (!warm && (done < settings_.initial || successes < 2)) {
    std::vector<Config> design = InitialDesign(r.space, seed_, settings_.initial);
    std::vector<Config> out;
    for (Config& c : design) {
      if (out.size() < r.batch && taken.insert(c.Key()).second) out.push_back(std::move(c));
    }
    if (out.size() < r.batch) {  // the design is used up: random points
      const RandomPermutation order(r.space.Size(), seed_ ^ done);
      std::vector<Config> pending = r.pending;
      pending.insert(pending.end(), out.begin(), out.end());
      const ProposalRequest rest{r.space, r.history, pending, r.batch - out.size(), r.transfer};
      for (Config& c : FirstNotTaken(
               r.space, [&](uint64_t i) { return order(i); }, rest))
        out.push_back(std::move(c));
    }
    return out;
  }
  // The transfer set stands in for the initial design, no longer: once as
  // many of this problem's own trials ran ok as the design holds, the model
  // learns from them alone. Another device's optimum can sit where this
  // one's does not (replayed: A100 with A4000 and MI250X as its transfer set
  // reached 0.683 of its optimum at 100 with them throughout, 0.812 with
  // this rule, random 0.749), and their thousands of rows outweigh the own ones.
  if (warm && successes >= settings_.initial) {
    const ProposalRequest own{r.space, r.history, r.pending, r.batch, nullptr};
    return ProposeFromModel(own, taken, done);
  }
  return ProposeFromModel(r, taken, done);
}

std::vector<Config> ModelStrategy::ProposeFromModel(const ProposalRequest& r,
                                                    std::unordered_set<std::string>& taken,
                                                    size_t done) {
  std::mt19937_64 rng(SplitMix64(seed_ ^ SplitMix64(done)));
  const ConfigFeatures features(r.space);
  const size_t width = features.width();
  // The model of this history.
  std::vector<float> x, y;
  for (const Trial& t : r.history) features.Append(t.config, &x);
  AppendTargets(r.history, settings_.clip_quantile, &y);
  if (r.transfer) {
    for (const History& group : r.transfer->groups) {
      if (!TransferSet::Teaches(group)) continue;  // its targets would all be one value
      for (const Trial& t : group) features.Append(t.config, &x);
      AppendTargets(group, settings_.clip_quantile, &y);
    }
  }
  CostModel::Options options;
  options.seed = SplitMix64(seed_ + done);
  const CostModel model(x, width, y, options);
  // The candidates, and what the model says of them.
  std::vector<Config> candidates = Candidates(r, taken, rng);
  std::vector<float> rows;
  rows.reserve(candidates.size() * width);
  for (const Config& c : candidates) features.Append(c, &rows);
  const std::vector<float> predicted = model.Predict(rows, width);
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return predicted[a] < predicted[b]; });
  return Pick(r, candidates, order, rng);
}

}  // namespace beast

namespace beast {
namespace {

// The configs one parameter away from `config` whose value another point
// showed possible: the values of each parameter seen in `seen`.
void AddNeighbours(const SearchSpace& space, const Config& config,
                   const std::vector<std::vector<Value>>& domains,
                   std::unordered_set<std::string>* known, std::vector<Config>* out) {
  for (size_t p = 0; p < config.size(); ++p) {
    for (const Value& v : domains[p]) {
      if (v.Equals(config.values()[p])) continue;
      std::vector<Value> values = config.values();
      values[p] = v;
      Config neighbour(config.names(), std::move(values));
      if (known->count(neighbour.Key()) || !space.IndexOf(neighbour)) continue;
      known->insert(neighbour.Key());
      out->push_back(std::move(neighbour));
    }
  }
}

// The distinct values of each parameter among `configs`.
std::vector<std::vector<Value>> Domains(size_t params, const std::vector<const Config*>& configs) {
  std::vector<std::vector<Value>> domains(params);
  for (const Config* c : configs) {
    for (size_t p = 0; p < params; ++p) {
      const Value& v = c->values()[p];
      auto& d = domains[p];
      if (std::none_of(d.begin(), d.end(), [&](const Value& w) { return w.Equals(v); }))
        d.push_back(v);
    }
  }
  return domains;
}

// The best `count` successful trials' configs, fastest first.
std::vector<const Config*> BestConfigs(const History& history, size_t count) {
  std::vector<const Trial*> ok;
  for (const Trial& t : history) {
    if (t.Succeeded()) ok.push_back(&t);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Trial* a, const Trial* b) { return *a->ms < *b->ms; });
  std::vector<const Config*> best;
  for (size_t i = 0; i < ok.size() && i < count; ++i) best.push_back(&ok[i]->config);
  return best;
}

}  // namespace

std::vector<Config> ModelStrategy::Candidates(const ProposalRequest& r,
                                              const std::unordered_set<std::string>& taken,
                                              std::mt19937_64& rng) {
  std::vector<Config> out;
  if (r.space.Size() <= settings_.score_all_below) {
    if (listed_space_ != &r.space || all_points_.size() != r.space.Size()) {
      all_points_.clear();
      for (uint64_t i = 0; i < r.space.Size(); ++i) all_points_.push_back(r.space.At(i));
      listed_space_ = &r.space;
    }
    for (const Config& c : all_points_) {
      if (!taken.count(c.Key())) out.push_back(c);
    }
    return out;
  }
  std::unordered_set<std::string> known = taken;
  const RandomPermutation order(r.space.Size(), rng());
  for (uint64_t i = 0; i < r.space.Size() && out.size() < settings_.pool; ++i) {
    Config c = r.space.At(order(i));
    if (known.insert(c.Key()).second) out.push_back(std::move(c));
  }
  std::vector<const Config*> seen;
  for (const Config& c : out) seen.push_back(&c);
  for (const Trial& t : r.history) seen.push_back(&t.config);
  const std::vector<std::vector<Value>> domains = Domains(r.space.names().size(), seen);
  std::vector<Config> neighbours;
  std::vector<const Config*> seeds = BestConfigs(r.history, settings_.best_count);
  if (r.transfer) {
    for (const History& group : r.transfer->groups) {
      for (const Config* c : BestConfigs(group, settings_.best_count)) {
        seeds.push_back(c);
        if (known.insert(c->Key()).second) neighbours.push_back(*c);
      }
    }
  }
  for (const Config* best : seeds) AddNeighbours(r.space, *best, domains, &known, &neighbours);
  for (Config& c : neighbours) out.push_back(std::move(c));
  return out;
}

std::vector<Config> ModelStrategy::Pick(const ProposalRequest& r,
                                        const std::vector<Config>& candidates,
                                        const std::vector<size_t>& order,
                                        std::mt19937_64& rng) const {
  const std::vector<const Config*> best = BestConfigs(r.history, settings_.best_count);
  std::vector<size_t> distance(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) distance[i] = DistanceToAll(candidates[i], best);
  std::vector<bool> picked(candidates.size(), false);
  std::vector<size_t> picks;
  const size_t batch = std::min(r.batch, candidates.size());
  // Each pick at least two parameters from the others (a batch of near
  // copies would learn little more than one of them).
  auto diverse = [&](size_t i) {
    return std::all_of(picks.begin(), picks.end(),
                       [&](size_t p) { return Distance(candidates[i], candidates[p]) >= 2; });
  };
  auto take = [&](size_t limit, const std::function<bool(size_t)>& wanted) {
    for (size_t k = 0, added = 0; k < order.size() && added < limit && picks.size() < batch; ++k) {
      const size_t i = order[k];
      if (picked[i] || !wanted(i)) continue;
      picked[i] = true;
      picks.push_back(i);
      ++added;
    }
  };
  const size_t random = std::min(settings_.random, batch);
  take(settings_.local, [&](size_t i) { return distance[i] == 1; });
  take(settings_.distant,
       [&](size_t i) { return distance[i] >= settings_.distant_from && diverse(i); });
  take(batch - random - std::min(batch - random, picks.size()), diverse);
  while (picks.size() < batch) {  // the random ones (and any the rules above left)
    size_t i = std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng);
    while (picked[i]) i = (i + 1) % candidates.size();
    picked[i] = true;
    picks.push_back(i);
  }
  std::vector<Config> out;
  for (size_t i : picks) out.push_back(candidates[i]);
  return out;
}

}  // namespace beast
