// The coordinator's bookkeeping under mpirun (cluster_schedule.hpp).
#include "beast/cluster/cluster_schedule.hpp"

#include <algorithm>
#include <deque>

#include "beast/core/error.hpp"
#include "beast/tuner/budget_split.hpp"
#include "beast/tuner/pair_best.hpp"

namespace beast {

// A pair whose configs are being dealt, or whose last ones are in flight.
struct ClusterSchedule::Active {
  size_t index = 0;  // in the group's pairs
  std::unique_ptr<PairTrajectory> trajectory;
  std::set<std::string> in_flight;  // config keys
  bool ended = false;               // its trajectory has nothing more
  Clock::time_point start, deadline;
  uint64_t skipped_shown = 0;
};

struct ClusterSchedule::GroupState {
  std::unique_ptr<Progress> progress;
  std::unique_ptr<TuneLoopContext> loop;
  size_t next_pair = 0;
  std::deque<Active> active;              // the newest at the back
  std::map<std::string, double> best_ms;  // by problem key: the time limit's scale
  std::vector<double> worth;              // each pair's, for the time budget
  int64_t slots = 0;                      // the group's ranks' slots
};

ClusterSchedule::ClusterSchedule(const TuneOptions& options, results_db::Store& store,
                                 int64_t run_id, Clock::time_point deadline)
    : options_(options), store_(store), run_id_(run_id), deadline_(deadline) {}

ClusterSchedule::~ClusterSchedule() = default;

size_t ClusterSchedule::AddGroup(const DeviceInfo& device, int64_t device_id,
                                 std::vector<PlannedPair> pairs, TuneSummary summary) {
  Group g;
  g.device = device;
  g.device_id = device_id;
  g.ids.resize(pairs.size());
  g.pair_summaries.resize(pairs.size());
  g.pairs = std::move(pairs);
  g.summary = std::move(summary);
  auto state = std::make_unique<GroupState>();
  state->progress =
      std::make_unique<Progress>(options_.progress, SelectedConfigs(g.pairs),
                                 /*compile_only=*/false, device.Id(), options_.progress_seconds);
  state->loop = std::make_unique<TuneLoopContext>(
      TuneLoopContext{store_, *state->progress, device_id, run_id_, device.compiler,
                      device.compiler_version, options_, deadline_});
  for (const PlannedPair& pair : g.pairs) {
    const auto w = options_.weights.find(pair.problem->Key());
    state->worth.push_back(PairWorth(*pair.problem, w == options_.weights.end() ? 1 : w->second));
  }
  groups_.push_back(std::move(g));
  states_.push_back(std::move(state));
  return groups_.size() - 1;
}

void ClusterSchedule::AddRank(int rank, std::string host, int64_t slots, size_t group) {
  Rank r;
  r.rank = rank;
  r.host = std::move(host);
  r.slots = std::max<int64_t>(1, slots);
  r.group = group;
  groups_.at(group).ranks.push_back(ranks_.size());
  states_[group]->slots += r.slots;
  ranks_.push_back(std::move(r));
}

size_t ClusterSchedule::RankIndex(int rank) const {
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (ranks_[i].rank == rank) return i;
  throw Error(ErrorCode::kInternal,
              "rank " + std::to_string(rank) + " serves no device of the run");
}

bool ClusterSchedule::StartPair(size_t group, const std::atomic<bool>& stop) {
  Group& g = groups_[group];
  GroupState& st = *states_[group];
  if (stop || st.next_pair >= g.pairs.size()) return false;
  const size_t i = st.next_pair++;
  const PlannedPair& pair = g.pairs[i];
  PairIds ids;
  ids.problem =
      store_.UpsertProblem(pair.problem->Key(), pair.problem->OpName(), pair.problem->Flops());
  ids.template_version =
      store_.UpsertTemplate(pair.spec->name, pair.spec->hash, pair.spec->source_rel);
  g.ids[i] = ids;
  PairSummary ps;
  ps.template_name = pair.spec->name;
  ps.tensor_cores = pair.spec->tensor_cores;
  ps.problem_key = pair.problem->Key();
  ps.space_size = pair.count;
  ps.strategy = pair.strategy;
  ps.selected = pair.budget;
  const std::string problem = pair.problem->Key();
  if (!st.best_ms.count(problem)) {
    if (std::optional<double> best = BestOfProblem(store_, g.device_id, *pair.problem))
      st.best_ms[problem] = *best;
  }
  double best_ms = -1, best_gflops = 0;
  if (auto row = BestOfPair(store_, g.device_id, pair)) {
    best_ms = row->median_ms.value_or(-1);
    best_gflops = row->gflops.value_or(0);
  }
  st.progress->StartPair(
      "[" + std::to_string(i + 1) + "/" + std::to_string(g.pairs.size()) + "] " + pair.spec->name,
      problem, pair.problem->Flops(), best_ms, best_gflops);
  Active a;
  a.index = i;
  a.start = Clock::now();
  // The time left is shared by the pairs left, each by its worth (as a run
  // on one device shares it).
  a.deadline = deadline_;
  if (deadline_ != Clock::time_point::max()) {
    const auto left = std::max(Clock::duration::zero(), deadline_ - a.start);
    const double share = ShareOfTimeLeft(
        std::vector<double>(st.worth.begin() + static_cast<long>(i), st.worth.end()));
    a.deadline = a.start + std::chrono::duration_cast<Clock::duration>(left * share);
  }
  PairTrajectory::Options o;
  o.seed = options_.seed;
  o.patience = options_.patience;
  o.transfer = options_.transfer;
  // The strategy proposes its next batch while every slot can still be fed.
  o.lead = static_cast<size_t>(std::max<int64_t>(2, st.slots));
  a.trajectory = std::make_unique<PairTrajectory>(pair, store_, g.device_id, ids.problem,
                                                  ids.template_version, o);
  ps.transferred = a.trajectory->transferred();
  g.pair_summaries[i] = ps;
  st.active.push_back(std::move(a));
  return true;
}

void ClusterSchedule::ClosePair(size_t group, Active& a) {
  Group& g = groups_[group];
  GroupState& st = *states_[group];
  PairSummary& ps = *g.pair_summaries[a.index];
  ps.skipped = a.trajectory->skipped();
  ps.seconds = std::chrono::duration<double>(Clock::now() - a.start).count();
  g.summary.proposal_seconds += a.trajectory->proposal_seconds();
  st.active.erase(std::find_if(st.active.begin(), st.active.end(),
                               [&](const Active& x) { return x.index == a.index; }));
}

std::optional<MeasureTask> ClusterSchedule::NextTask(size_t group, const std::atomic<bool>& stop) {
  GroupState& st = *states_[group];
  while (!stop) {
    if ((st.active.empty() || st.active.back().ended) && !StartPair(group, stop))
      return std::nullopt;
    Active& a = st.active.back();
    std::optional<Config> head = a.trajectory->Next(a.deadline, stop);
    st.progress->Skipped(a.trajectory->skipped() - a.skipped_shown);
    a.skipped_shown = a.trajectory->skipped();
    if (!head) {
      a.ended = true;
      if (a.in_flight.empty()) ClosePair(group, a);
      continue;
    }
    // The next config and those proposed beyond it, in trajectory order.
    std::vector<Config> candidates = {*head};
    for (Config& c : a.trajectory->Ahead(static_cast<size_t>(st.slots)))
      candidates.push_back(std::move(c));
    for (const Config& c : candidates) {
      if (!a.in_flight.insert(c.Key()).second) continue;
      MeasureTask task;
      task.pair = static_cast<int64_t>(a.index);
      task.config_key = c.Key();
      const auto best = st.best_ms.find(groups_[group].pairs[a.index].problem->Key());
      if (best != st.best_ms.end()) task.best_ms = best->second;
      return task;
    }
    return std::nullopt;  // all in flight: the trajectory waits for their outcomes
  }
  return std::nullopt;
}

std::vector<std::pair<int, MeasureTask>> ClusterSchedule::Deal(const std::atomic<bool>& stop) {
  std::vector<std::pair<int, MeasureTask>> out;
  for (size_t g = 0; g < groups_.size() && !stop; ++g) {
    while (true) {
      // The rank of the group with the most free slots.
      Rank* free = nullptr;
      for (size_t r : groups_[g].ranks) {
        Rank& rank = ranks_[r];
        if (rank.in_flight < rank.slots &&
            (!free || rank.slots - rank.in_flight > free->slots - free->in_flight))
          free = &rank;
      }
      if (!free) break;
      std::optional<MeasureTask> task = NextTask(g, stop);
      if (!task) break;
      ++free->in_flight;
      out.emplace_back(free->rank, std::move(*task));
    }
  }
  return out;
}

void ClusterSchedule::Land(int rank, const MeasuredTask& task) {
  Rank& r = ranks_[RankIndex(rank)];
  Group& g = groups_[r.group];
  GroupState& st = *states_[r.group];
  auto a = std::find_if(st.active.begin(), st.active.end(), [&](const Active& x) {
    return static_cast<int64_t>(x.index) == task.pair && x.in_flight.count(task.config_key);
  });
  if (a == st.active.end() || r.in_flight <= 0)
    throw Error(ErrorCode::kInternal,
                "rank " + std::to_string(rank) + " sent the outcome of a config it was not dealt");
  --r.in_flight;
  ++r.measured;
  const PlannedPair& pair = g.pairs[a->index];
  const Config config = Config::ParseKey(task.config_key);
  const Outcome& outcome = task.outcome;
  RecordOutcome(*st.loop, pair, *g.ids[a->index], config, outcome, a->trajectory->ChosenBy(config));
  a->trajectory->Measured(config, outcome.status, outcome.median_ms);
  CountOutcome(*st.loop, Status::kOk, outcome, &*g.pair_summaries[a->index]);
  if (outcome.status == Status::kOk && outcome.median_ms) {
    auto [best, fresh] = st.best_ms.emplace(pair.problem->Key(), *outcome.median_ms);
    if (!fresh) best->second = std::min(best->second, *outcome.median_ms);
  }
  a->in_flight.erase(task.config_key);
  if (a->ended && a->in_flight.empty()) ClosePair(r.group, *a);
}

void ClusterSchedule::Finish() {
  for (size_t g = 0; g < states_.size(); ++g) {
    states_[g]->progress->Finish();
    while (!states_[g]->active.empty()) ClosePair(g, states_[g]->active.front());
  }
}

bool ClusterSchedule::Finished() const {
  for (size_t g = 0; g < groups_.size(); ++g) {
    const GroupState& st = *states_[g];
    if (st.next_pair < groups_[g].pairs.size() || !st.active.empty()) return false;
  }
  return true;
}

int64_t ClusterSchedule::InFlight() const {
  int64_t n = 0;
  for (const Rank& r : ranks_) n += r.in_flight;
  return n;
}

}  // namespace beast
