// The transfer set of a pair (pair_transfer.hpp).
#include "beast/tuner/pair_transfer.hpp"

#include <map>
#include <optional>
#include <utility>

#include "beast/core/error.hpp"
#include "beast/search/permutation.hpp"

namespace beast {

namespace {

// The trial of outcome m when its config is a point of `space`.
std::optional<Trial> TrialIn(const results_db::MeasuredOutcome& m, const SearchSpace& space) {
  Trial trial;
  try {
    trial.config = Config::ParseKey(m.config_key);
  } catch (const Error&) {
    return std::nullopt;  // a key of a form this beast does not read: nothing to learn
  }
  if (trial.config.names() != space.names()) {
    // An edit of the template may have reordered its parameters: the same
    // point, named otherwise.
    std::optional<Config> same = trial.config.InOrder(space.names());
    if (!same) return std::nullopt;
    trial.config = std::move(*same);
  }
  if (!space.IndexOf(trial.config)) return std::nullopt;
  trial.status = m.status;
  trial.ms = m.median_ms;
  return trial;
}

}  // namespace

TransferSet TransferFor(results_db::Store& store, const SearchSpace& space,
                        const std::string& template_name, int64_t device_id, int64_t problem_id,
                        int64_t before_id) {
  const std::vector<results_db::MeasuredOutcome> outcomes =
      store.TemplateOutcomes(template_name, before_id);
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> rows;  // by (device, problem)
  for (size_t i = 0; i < outcomes.size(); ++i) {
    const results_db::MeasuredOutcome& m = outcomes[i];
    if (m.device_id != device_id || m.problem_id != problem_id)
      rows[{m.device_id, m.problem_id}].push_back(i);
  }
  TransferSet set;
  for (const auto& [key, indices] : rows) {
    // Beyond kMaxTransferTrialsPerGroup, a fixed uniform sample (as beast
    // replay --transfer takes): an exhaustive tuning records its space in
    // enumeration order, whose first configs are all alike. Only the
    // sample's configs are read.
    const bool sampled = indices.size() > kMaxTransferTrialsPerGroup;
    const RandomPermutation order(sampled ? indices.size() : 1, /*seed=*/0);
    History group;
    for (uint64_t k = 0; k < indices.size() && group.size() < kMaxTransferTrialsPerGroup; ++k) {
      const size_t i = indices[sampled ? order(k) : k];
      if (std::optional<Trial> trial = TrialIn(outcomes[i], space))
        group.push_back(std::move(*trial));
    }
    if (!group.empty()) set.groups.push_back(std::move(group));
  }
  return set;
}

}  // namespace beast
