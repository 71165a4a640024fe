// The coordinator of a run under mpirun (cluster_coordinator.hpp).
#include "beast/cluster/cluster_coordinator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "beast/cluster/cluster_plan.hpp"
#include "beast/cluster/cluster_protocol.hpp"
#include "beast/cluster/cluster_schedule.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/space/post_compile.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/tuner/multi_device_tune.hpp"
#include "beast/tuner/pair_best.hpp"
#include "beast/tuner/run_failure.hpp"
#include "beast/tuner/tune_baselines.hpp"
#include "beast/tuner/tune_confirm.hpp"
#include "beast/tuner/tune_peak.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tune_share.hpp"
#include "beast/worker/device_calls.hpp"
#include "harness/render/renderer.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

using Clock = std::chrono::steady_clock;

// How long rank 0 waits, at the run's end, for a rank still starting (its
// device worker, its peak measurement: up to kPeakTimeoutSeconds) to say
// hello or goodbye: a hello sent once rank 0 has stopped listening could
// keep that rank from ever ending, and MPI's end waits for every rank.
constexpr auto kStartingPatience =
    std::chrono::seconds(static_cast<int>(kPeakTimeoutSeconds) + 180);

struct RankState {
  RankHello hello;
  bool hello_came = false;
  bool bye = false;
  std::string share;  // its kShare's inner payload, when it came
};

// What the coordinator hears from the ranks outside the dealing: a rank that
// cannot serve, one that leaves (a signal reached it), its share.
class Ranks {
 public:
  explicit Ranks(RankLink& link) : link_(link), states_(static_cast<size_t>(link.size())) {}

  RankState& operator[](int rank) { return states_.at(static_cast<size_t>(rank)); }
  int size() const { return static_cast<int>(states_.size()); }
  const std::string& fatal() const { return fatal_; }
  bool someone_left() const { return left_; }

  // Takes a message that is not an outcome or a reply awaited.
  void Note(const RankMessage& m) {
    RankState& r = (*this)[m.source];
    switch (ClusterKind(m.payload)) {
      case ClusterMessage::kHello:
        r.hello = DecodeHello(m.payload);
        r.hello_came = true;
        break;
      case ClusterMessage::kFatal:
        if (fatal_.empty()) fatal_ = DecodeClusterFatal(m.payload);
        break;
      case ClusterMessage::kShare:
        r.share = DecodeWrapped(ClusterMessage::kShare, m.payload).inner;
        break;
      case ClusterMessage::kBye:
        r.bye = true;
        left_ = left_ || DecodeBye(m.payload);
        break;
      default:
        throw Error(ErrorCode::kInternal,
                    "rank " + std::to_string(m.source) + " sent a message out of turn");
    }
  }

  // Tells every rank that has not left that the run is done, and waits (up
  // to `patience`, or kStartingPatience while a rank has not said hello) for
  // each one's share and goodbye, recording the outcomes still in flight
  // with `outcome`.
  void EndAll(Clock::duration patience,
              const std::function<void(const RankMessage&)>& outcome = nullptr) {
    for (int rank = 1; rank < size(); ++rank)
      if (!(*this)[rank].bye) link_.Send(rank, EncodeDone());
    const auto start = Clock::now();
    while (true) {
      bool all = true, starting = false;
      for (int rank = 1; rank < size(); ++rank) {
        all = all && (*this)[rank].bye;
        starting = starting || (!(*this)[rank].bye && !(*this)[rank].hello_came);
      }
      if (all) return;
      if (Clock::now() - start >=
          (starting ? std::max<Clock::duration>(patience, kStartingPatience) : patience))
        return;
      std::optional<RankMessage> m = link_.Wait(std::chrono::milliseconds(100), nullptr);
      if (!m) continue;
      const ClusterMessage kind = ClusterKind(m->payload);
      if (kind == ClusterMessage::kOutcome) {
        if (outcome) outcome(*m);
      } else if (kind != ClusterMessage::kBaselineResult &&
                 kind != ClusterMessage::kConfirmResult) {
        Note(*m);
      }
    }
  }

 private:
  RankLink& link_;
  std::vector<RankState> states_;
  std::string fatal_;
  bool left_ = false;
};

// A device rank as the baseline and confirmation steps see it: each request
// goes to the rank and the coordinator waits for its reply.
class RankDevice : public DeviceCalls {
 public:
  RankDevice(RankLink& link, Ranks& ranks, int rank) : link_(link), ranks_(ranks), rank_(rank) {}

  std::optional<harness::BaselineResult> MeasureBaseline(const BaselineRequest& request,
                                                         const std::string& routine,
                                                         double timeout_seconds,
                                                         const std::atomic<bool>& stop) override {
    link_.Send(rank_, EncodeWrapped(ClusterMessage::kBaseline, EncodeBaseline(request), routine,
                                    timeout_seconds));
    std::optional<std::string> reply = Await(ClusterMessage::kBaselineResult, stop);
    if (!reply) return std::nullopt;
    return DecodeBaselineResult(*reply, nullptr);
  }

  std::optional<std::vector<ConfirmResult>> Confirm(const ConfirmRequest& request,
                                                    double timeout_seconds,
                                                    const std::atomic<bool>& stop) override {
    link_.Send(rank_, EncodeWrapped(ClusterMessage::kConfirm, EncodeConfirm(request), "",
                                    timeout_seconds));
    std::optional<std::string> reply = Await(ClusterMessage::kConfirmResult, stop);
    if (!reply) return std::nullopt;
    return DecodeConfirmResults(*reply, nullptr);
  }

 private:
  // The rank's reply of `kind`; nullopt when stopped or the rank left first.
  // (The rank's device worker bounds the request's time.) A rank that
  // failed says so instead of replying, and waits to be told the run is
  // done: its failure ends the run here.
  std::optional<std::string> Await(ClusterMessage kind, const std::atomic<bool>& stop) {
    while (!stop && !ranks_[rank_].bye) {
      std::optional<RankMessage> m = link_.Wait(std::chrono::seconds(1), &stop);
      if (!m) continue;
      if (m->source == rank_ && ClusterKind(m->payload) == kind)
        return DecodeWrapped(kind, m->payload).inner;
      ranks_.Note(*m);
      if (!ranks_.fatal().empty()) throw Error(ErrorCode::kEnvironment, ranks_.fatal());
    }
    return std::nullopt;
  }

  RankLink& link_;
  Ranks& ranks_;
  int rank_;
};

// Every rank's hello (or the first failure); false when stopped first.
bool AwaitHellos(RankLink& link, Ranks& ranks, const std::atomic<bool>& stop) {
  while (!stop) {
    bool all = true;
    for (int rank = 1; rank < ranks.size(); ++rank)
      all = all && (ranks[rank].hello_came || ranks[rank].bye);
    if (all || !ranks.fatal().empty()) break;
    if (std::optional<RankMessage> m = link.Wait(std::chrono::seconds(1), &stop)) ranks.Note(*m);
  }
  if (!ranks.fatal().empty()) throw Error(ErrorCode::kEnvironment, ranks.fatal());
  return !stop && !ranks.someone_left();
}

std::string RankName(int rank, const RankHello& hello) {
  return hello.device.Id() + " on " + hello.host + " (rank " + std::to_string(rank) + ")";
}

// The groups of ranks with one device, in the order of their first rank.
std::vector<std::vector<int>> GroupRanks(Ranks& ranks) {
  std::vector<std::vector<int>> groups;
  std::map<std::string, size_t> group_of;
  for (int rank = 1; rank < ranks.size(); ++rank) {
    auto [it, fresh] = group_of.emplace(ResultIdentity(ranks[rank].hello.device), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(rank);
  }
  return groups;
}

// Baselines and confirmations of one group, by its first rank.
void FinishGroup(const TuneOptions& o, results_db::Store& store, int64_t run_id,
                 harness::Renderer& renderer, RankDevice& device, ClusterSchedule::Group& g,
                 const std::atomic<bool>& stop) {
  const harness::BenchmarkPlan plan = BenchmarkPlanOf(o);
  const std::string library = ResolveBaselineLibrary(o.baselines, g.device);
  g.summary.baselines = MeasureRunBaselines(
      o, library, g.pairs, {device, store, g.device_id, run_id, plan, 0, o.progress}, stop);
  for (size_t i = 0; i < g.pairs.size() && !stop; ++i) {
    if (!g.pair_summaries[i]) continue;  // never started
    PairSummary& ps = *g.pair_summaries[i];
    if (o.confirm_top >= 2) {
      ConfirmContext context{device,        store,     renderer, g.device,
                             g.device_id,   run_id,    plan,     o.timeout_seconds * o.confirm_top,
                             o.confirm_top, o.progress};
      const auto start = Clock::now();
      try {
        ps.confirmed_now = ConfirmPair(context, g.pairs[i], g.ids[i]->problem,
                                       g.ids[i]->template_version, stop) == ConfirmStatus::kDone;
      } catch (const harness::RenderInterrupted&) {
        break;
      }
      if (ps.confirmed_now)
        g.summary.confirm_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }
  }
}

// Each started pair's winner, and the group's roofline.
void SummarizeGroup(const TuneOptions& o, results_db::Store& store, ClusterSchedule::Group& g) {
  for (size_t i = 0; i < g.pairs.size(); ++i)
    if (g.pair_summaries[i])
      SummarizePairBest(store, g.device_id, g.pairs[i], *g.ids[i], &*g.pair_summaries[i]);
  AddBaselinesAndPeak(store, g.device_id, g.device, ResolveBaselineLibrary(o.baselines, g.device),
                      &g.summary);
}

// The run itself, once every rank said hello.
// `start`: when the job began (the ranks' hellos and peaks included).
ClusterRun Coordinate(RankLink& link, Ranks& ranks, const TuneOptions& o,
                      const std::vector<SpaceSpec>& specs, const std::string& templates_dir,
                      Clock::time_point start, const std::atomic<bool>& stop) {
  const std::vector<std::vector<int>> groups = GroupRanks(ranks);
  // Every group's plan, checked against its ranks' before anything is written.
  std::vector<std::vector<PlannedPair>> plans;
  std::vector<TuneSummary> summaries;
  for (const std::vector<int>& group : groups) {
    const DeviceInfo& device = ranks[group.front()].hello.device;
    TuneSummary s;
    plans.push_back(
        PlanPairs(specs, o, device, &s.empty_spaces, &s.other_layout, &s.not_applicable));
    for (const PlannedPair& pair : plans.back()) s.planned_problems.insert(pair.problem->Key());
    const std::string plan = PlanText(plans.back());
    for (int rank : group) {
      if (ranks[rank].hello.plan != plan)
        throw Error(ErrorCode::kEnvironment,
                    RankName(rank, ranks[rank].hello) +
                        " plans another run than rank 0 (other templates or another beast?)");
    }
    s.device_id = device.Id();
    s.device_name = device.name;
    s.cache_dir = o.cache_dir;
    s.post_compile_not_applied = UnappliedPostCompileLine(SpacesOf(plans.back()), device.backend);
    summaries.push_back(std::move(s));
  }
  if (o.progress) {
    std::fprintf(stderr, "tuning under mpirun: %d device ranks, %zu kinds of device\n",
                 ranks.size() - 1, groups.size());
  }
  results_db::Store store = results_db::Store::Open(o.db_path);
  const int64_t run_id = store.BeginRun(o.command_line, BEAST_VERSION);
  ClusterRun out;
  try {
    ClusterSchedule schedule(o, store, run_id,
                             o.time_budget_seconds > 0
                                 ? start + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(o.time_budget_seconds))
                                 : Clock::time_point::max());
    for (size_t k = 0; k < groups.size(); ++k) {
      const RankHello& first = ranks[groups[k].front()].hello;
      const harness::PeakFlopsResult peak = DecodePeakResult(first.peak, nullptr);
      ShowPeak(peak, first.device, o.progress, &summaries[k]);
      const int64_t device_id = store.UpsertDevice(
          {first.device.backend, first.device.name, first.device.vendor,
           first.device.driver_version, first.device.arch,
           LimitsWithMeasuredPeak(DeviceLimitsToJson(first.device.limits), peak)});
      summaries[k].compile_jobs = static_cast<int>(first.compile_jobs);
      const size_t g =
          schedule.AddGroup(first.device, device_id, std::move(plans[k]), std::move(summaries[k]));
      for (int rank : groups[k])
        schedule.AddRank(rank, ranks[rank].hello.host, ranks[rank].hello.slots, g);
    }
    // Deal and record until every trajectory has ended.
    auto land = [&](const RankMessage& m) {
      schedule.Land(m.source, DecodeMeasuredTask(m.payload));
    };
    while (!stop && !ranks.someone_left() && !schedule.Finished()) {
      for (auto& [rank, task] : schedule.Deal(stop)) link.Send(rank, EncodeMeasureTask(task));
      if (schedule.Finished()) break;
      std::optional<RankMessage> m = link.Wait(std::chrono::seconds(1), &stop);
      if (!m) continue;
      if (ClusterKind(m->payload) == ClusterMessage::kOutcome) {
        land(*m);
      } else {
        ranks.Note(*m);
      }
      if (!ranks.fatal().empty()) throw Error(ErrorCode::kEnvironment, ranks.fatal());
    }
    out.interrupted = stop || ranks.someone_left();
    // Outcomes still in flight when a signal came, or when a rank left, are
    // recorded as they land, while their pairs are still open to take them.
    const bool ended_early = out.interrupted;
    if (ended_early) ranks.EndAll(std::chrono::seconds(10), land);
    schedule.Finish();
    if (!out.interrupted) {
      const Paths paths = Paths::Default();
      harness::Renderer renderer(paths.python, paths.render_script, templates_dir);
      renderer.SetLimits(o.timeout_seconds, &stop);
      for (size_t k = 0; k < groups.size() && !stop; ++k) {
        RankDevice device(link, ranks, groups[k].front());
        FinishGroup(o, store, run_id, renderer, device, schedule.groups()[k], stop);
      }
      out.interrupted = stop || ranks.someone_left();
    }
    // Every trajectory ended with nothing in flight: the goodbyes bring the
    // ranks' shares.
    if (!ended_early)
      ranks.EndAll(out.interrupted ? std::chrono::seconds(10) : std::chrono::seconds(60), land);
    out.late_failure = ranks.fatal();
    for (size_t k = 0; k < groups.size(); ++k) {
      ClusterSchedule::Group& g = schedule.groups()[k];
      SummarizeGroup(o, store, g);
      for (std::optional<PairSummary>& ps : g.pair_summaries)
        if (ps) g.summary.pairs.push_back(std::move(*ps));
      const double wall = std::chrono::duration<double>(Clock::now() - start).count();
      for (int rank : groups[k]) {
        TuneSummary::RankShare share;
        share.rank = rank;
        share.host = ranks[rank].hello.host;
        for (const auto& r : schedule.ranks())
          if (r.rank == rank) share.measured = r.measured;
        if (!ranks[rank].share.empty()) {
          try {
            const TuneSummary spent = DecodeShare(ranks[rank].share);
            share.busy_seconds = spent.benchmark_seconds;
            AddShare(spent, &g.summary);
          } catch (const Error&) {
            // A share that does not decode counts nothing; the database has it all.
          }
        }
        char busy[32];
        std::snprintf(busy, sizeof busy, "%.0f%%", wall > 0 ? 100 * share.busy_seconds / wall : 0);
        g.summary.devices.push_back(RankName(rank, ranks[rank].hello) + ": " +
                                    std::to_string(share.measured) + " configs, device busy " +
                                    busy);
        g.summary.ranks.push_back(std::move(share));
      }
      g.summary.interrupted = out.interrupted;
      g.summary.job = o.job;
      g.summary.weights = o.weights;
      g.summary.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      out.groups.push_back(std::move(g.summary));
    }
  } catch (...) {
    EndFailedRun(store, run_id);  // what was recorded stays; a rerun resumes
  }
  store.FinishRun(
      run_id, out.interrupted ? results_db::RunEnd::kInterrupted : results_db::RunEnd::kFinished);
  return out;
}

// Ends every rank after a failure, whatever they send meanwhile: the
// failure's own error is the one to report.
void EndAllAfterFailure(Ranks& ranks) {
  try {
    ranks.EndAll(std::chrono::seconds(10));
  } catch (...) {  // a message out of turn: the ranks are told all the same
  }
}

}  // namespace

void EndUnstartedRun(RankLink& link) {
  Ranks ranks(link);
  EndAllAfterFailure(ranks);
}

ClusterRun CoordinateTune(RankLink& link, const TuneOptions& o, const std::atomic<bool>& stop) {
  const Clock::time_point start = Clock::now();
  Ranks ranks(link);
  try {
    if (link.size() < 2)
      throw Error(ErrorCode::kEnvironment,
                  "under mpirun, rank 0 coordinates and the other ranks measure: start at least "
                  "2 ranks");
    CheckTuneOptions(o);
    if (!o.retry_failed.empty())
      throw Error(ErrorCode::kBadArgument,
                  "--retry-failed is not taken under mpirun: run it on one device");
    const std::string templates_dir =
        o.templates_dir.empty() ? Paths::Default().templates_dir : o.templates_dir;
    std::vector<SpaceSpec> specs;
    for (const auto& name : o.templates) specs.push_back(SpaceSpec::Load(templates_dir, name));
    if (!AwaitHellos(link, ranks, stop)) {
      ranks.EndAll(std::chrono::seconds(10));
      ClusterRun out;
      out.interrupted = true;
      return out;
    }
    return Coordinate(link, ranks, o, specs, templates_dir, start, stop);
  } catch (...) {
    // No rank is left waiting: each is told, and the error is the run's line.
    EndAllAfterFailure(ranks);
    throw;
  }
}

}  // namespace beast
