// A pair's trajectory through its space, fed by the database
// (pair_trajectory.hpp).
#include "beast/tuner/pair_trajectory.hpp"

#include <algorithm>
#include <cstdint>
#include <thread>

#include "beast/tuner/pair_transfer.hpp"

namespace beast {
namespace {

// How far beyond the next position a shard looks for configs of its own:
// more than a strategy proposes at once.
constexpr size_t kLookAhead = 256;
constexpr auto kPollInterval = std::chrono::milliseconds(100);

Trial TrialOf(const results_db::MeasuredOutcome& m) {
  Trial t;
  t.status = m.status;
  t.ms = m.median_ms;
  return t;
}

}  // namespace

PairTrajectory::PairTrajectory(const PlannedPair& pair, results_db::Store& store, int64_t device_id,
                               int64_t problem_id, int64_t template_id, const Options& options)
    : pair_(pair),
      store_(store),
      device_id_(device_id),
      problem_id_(problem_id),
      template_id_(template_id),
      options_(options),
      space_(*pair.space),
      strategy_(MakeStrategy(pair.strategy, options.seed)) {
  for (const results_db::MeasuredOutcome& m :
       store.MeasuredOutcomes(device_id, problem_id, template_id))
    known_.emplace(m.config_key, TrialOf(m));  // the first outcome of a config stands
  if (options.transfer && strategy_->LearnsFromTransfer()) {
    const int64_t before_id = store.TransferCutoff(device_id, problem_id, template_id);
    transfer_ = TransferFor(store, space_, pair.spec->name, device_id, problem_id, before_id);
    for (const History& group : transfer_.groups)
      if (TransferSet::Teaches(group)) transferred_ += group.size();  // what the model learns from
  }
  SearchDriver::Options o;
  o.budget = pair.budget;
  if (pair.has_default) o.first = pair.default_config;
  o.patience = options.patience;
  // The largest lead any run of the search had: a resume under a smaller
  // one (a cluster's is its ranks' compile slots) would otherwise propose
  // another trajectory; a larger one raises it, to feed its slots.
  o.lead = static_cast<size_t>(
      store.SearchLead(device_id, problem_id, template_id, static_cast<int64_t>(options.lead)));
  driver_ = std::make_unique<SearchDriver>(*strategy_, space_, o, &transfer_);
}

bool PairTrajectory::Mine(size_t position) const {
  return position % static_cast<size_t>(options_.shard_count) ==
         static_cast<size_t>(options_.shard_index);
}

bool PairTrajectory::RecordKnown(const Config& next) {
  auto it = known_.find(next.Key());
  if (it == known_.end()) return false;
  if (!measured_here_.count(it->first)) ++skipped_;
  Trial trial = it->second;
  trial.config = next;
  driver_->Record(std::move(trial));
  return true;
}

bool PairTrajectory::Refresh() {
  bool news = false;
  for (const results_db::MeasuredOutcome& m :
       store_.MeasuredOutcomes(device_id_, problem_id_, template_id_))
    news = known_.emplace(m.config_key, TrialOf(m)).second || news;
  return news;
}

std::optional<Config> PairTrajectory::Next(Clock::time_point deadline,
                                           const std::atomic<bool>& stop) {
  Clock::time_point last_news = Clock::now();
  // The first config (the default) even past the deadline: a pair a time
  // budget reached late (the one before ran over) still gets one.
  while (!stop && (Clock::now() < deadline || (driver_->position() == 0 && Mine(0)))) {
    std::optional<Config> next = driver_->Next();
    if (!next) return std::nullopt;
    if (RecordKnown(*next)) continue;
    if (Mine(driver_->position())) return next;
    // Another shard's: measure one of ours meanwhile, else wait for its outcome.
    std::vector<Config> ahead = Ahead(1);
    if (!ahead.empty()) return ahead.front();
    if (Refresh()) {
      last_news = Clock::now();
      continue;
    }
    if (std::chrono::duration<double>(Clock::now() - last_news).count() >
        options_.shard_wait_seconds)
      return std::nullopt;
    std::this_thread::sleep_for(kPollInterval);
  }
  return std::nullopt;
}

std::vector<Config> PairTrajectory::Ahead(size_t count) const {
  std::vector<Config> out;
  const std::vector<Config> proposed = driver_->Ahead(kLookAhead);
  for (size_t i = 0; i < proposed.size() && out.size() < count; ++i) {
    if (Mine(driver_->position() + 1 + i) && !known_.count(proposed[i].Key()))
      out.push_back(proposed[i]);
  }
  return out;
}

void PairTrajectory::Measured(const Config& config, Status status,
                              std::optional<double> median_ms) {
  Trial trial;
  trial.config = config;
  trial.status = status;
  trial.ms = median_ms;
  known_[config.Key()] = std::move(trial);
  measured_here_.insert(config.Key());
}

std::string PairTrajectory::ChosenBy(const Config& config) const {
  return driver_->Proposed(config) ? pair_.strategy : "default";
}

}  // namespace beast
