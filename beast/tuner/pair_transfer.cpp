// The transfer set of a pair (pair_transfer.hpp).
#include "beast/tuner/pair_transfer.hpp"

#include <map>
#include <utility>

#include "beast/core/error.hpp"
#include "beast/search/permutation.hpp"

namespace beast {

TransferSet TransferFor(results_db::Store& store, const SearchSpace& space,
                        const std::string& template_name, int64_t device_id, int64_t problem_id,
                        int64_t before_id) {
  std::map<std::pair<int64_t, int64_t>, History> groups;  // by (device, problem)
  for (const results_db::MeasuredOutcome& m : store.TemplateOutcomes(template_name, before_id)) {
    if (m.device_id == device_id && m.problem_id == problem_id) continue;
    History& group = groups[{m.device_id, m.problem_id}];
    Config config;
    try {
      config = Config::ParseKey(m.config_key);
    } catch (const Error&) {
      continue;  // a key of a form this beast does not read: nothing to learn
    }
    if (config.names() != space.names() || !space.IndexOf(config)) continue;
    Trial trial;
    trial.config = std::move(config);
    trial.status = m.status;
    trial.ms = m.median_ms;
    group.push_back(std::move(trial));
  }
  TransferSet set;
  for (auto& [key, group] : groups) {
    if (group.empty()) continue;
    if (group.size() <= kMaxTransferTrialsPerGroup) {
      set.groups.push_back(std::move(group));
      continue;
    }
    // A fixed uniform sample, as beast replay --transfer takes: an
    // exhaustive tuning records its space in enumeration order, whose first
    // configs are all alike.
    const RandomPermutation order(group.size(), /*seed=*/0);
    History sample;
    for (uint64_t i = 0; i < kMaxTransferTrialsPerGroup; ++i)
      sample.push_back(std::move(group[order(i)]));
    set.groups.push_back(std::move(sample));
  }
  return set;
}

}  // namespace beast
