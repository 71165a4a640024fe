// One strategy's trajectory through a space (search_driver.hpp).
#include "beast/search/search_driver.hpp"

#include <algorithm>
#include <chrono>

#include "beast/core/error.hpp"

namespace beast {

SearchDriver::SearchDriver(Strategy& strategy, const SearchSpace& space, Options options,
                           const TransferSet* transfer)
    : strategy_(strategy), space_(space), options_(std::move(options)), transfer_(transfer) {
  if (options_.first && options_.budget > 0) {
    upcoming_.push_back(*options_.first);
    ++proposed_;
  }
}

// The strategy always proposes a whole batch, and the budget cuts the
// trajectory after it: so the trajectory of a budget is a prefix of that of
// a larger one, and a rerun with a larger budget extends an earlier run.
void SearchDriver::ProposeIfDue() {
  while (!exhausted_ && proposed_ < options_.budget && upcoming_.size() <= options_.lead) {
    const std::vector<Config> pending(upcoming_.begin(), upcoming_.end());
    const size_t batch = strategy_.PreferredBatch();
    const auto start = std::chrono::steady_clock::now();
    std::vector<Config> next = strategy_.Propose({space_, history_, pending, batch, transfer_});
    proposal_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // A batch of fewer configs than asked means the space ran out.
    if (next.size() < batch) exhausted_ = true;
    for (Config& c : next) {
      if (proposed_ == options_.budget) break;
      upcoming_.push_back(std::move(c));
      ++proposed_;
    }
  }
}

bool SearchDriver::Patient() const {
  return options_.patience == 0 || since_improvement_ < options_.patience;
}

std::optional<Config> SearchDriver::Next() {
  if (awaiting_record_) return upcoming_.front();
  if (!Patient()) return std::nullopt;
  ProposeIfDue();
  if (upcoming_.empty()) return std::nullopt;
  awaiting_record_ = true;
  return upcoming_.front();
}

std::vector<Config> SearchDriver::Ahead(size_t count) const {
  std::vector<Config> out;
  for (size_t i = 1; i < upcoming_.size() && out.size() < count; ++i) out.push_back(upcoming_[i]);
  return out;
}

void SearchDriver::Record(Trial trial) {
  BEAST_CHECK(awaiting_record_ && trial.config.Key() == upcoming_.front().Key());
  awaiting_record_ = false;
  upcoming_.pop_front();
  // An improvement is a time at least 1% below the best so far.
  if (trial.Succeeded() && (best_ms_ == 0 || *trial.ms < best_ms_ * 0.99)) {
    best_ms_ = *trial.ms;
    since_improvement_ = 0;
  } else {
    ++since_improvement_;
  }
  history_.push_back(std::move(trial));
}

bool SearchDriver::Proposed(const Config& config) const {
  return !options_.first || config.Key() != options_.first->Key();
}

}  // namespace beast
