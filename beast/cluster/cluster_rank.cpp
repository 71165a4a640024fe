// A device rank of a run under mpirun (cluster_rank.hpp).
#include "beast/cluster/cluster_rank.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "beast/cluster/cluster_plan.hpp"
#include "beast/cluster/cluster_protocol.hpp"
#include "beast/compile/program_supply.hpp"
#include "beast/core/error.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/problem_buffers.hpp"
#include "beast/space/space_spec.hpp"
#include "beast/tuner/supplied_measure.hpp"
#include "beast/tuner/tune_plan.hpp"
#include "beast/tuner/tune_share.hpp"
#include "beast/worker/confirm_protocol.hpp"
#include "beast/worker/worker_client.hpp"
#include "beast/worker/worker_protocol.hpp"
#include "harness/devices/device_resolver.hpp"
#include "harness/render/renderer.hpp"

namespace beast {
namespace {

constexpr int kCoordinator = 0;
// The most configs a rank holds beyond the one it measures: enough to keep a
// compile pool building while the device runs, few enough that the
// coordinator can still deal the rest to a faster rank.
constexpr int64_t kMaxAhead = 4;

// Everything a rank holds while it serves.
struct Serving {
  DeviceInfo device;
  std::vector<SpaceSpec> specs;
  std::vector<PlannedPair> pairs;
  std::unique_ptr<harness::Renderer> renderer;
  std::unique_ptr<WorkerClient> worker;
  std::unique_ptr<ProgramSupply> supply;
  std::string peak;     // EncodePeakResult's payload
  TuneSummary summary;  // what the rank spent; its pairs stay empty
};

// Opens the device and plans the run for it; nullopt when stopped first.
// Throws Error when the rank cannot serve.
std::unique_ptr<Serving> Open(const TuneOptions& o, const DeviceSelector& selector,
                              const std::atomic<bool>& stop) {
  if (!selector.arch.empty())
    throw Error(ErrorCode::kBadArgument,
                "--device cuda:" + selector.arch +
                    " compiles only: under mpirun every device rank measures on a live device");
  auto s = std::make_unique<Serving>();
  const Paths paths = Paths::Default();
  const std::string templates_dir = o.templates_dir.empty() ? paths.templates_dir : o.templates_dir;
  for (const auto& name : o.templates) s->specs.push_back(SpaceSpec::Load(templates_dir, name));
  s->device = ResolveDevice(selector);
  for (const Problem& problem : o.problems) CheckProblemFits(problem, s->device, HostMemoryBytes());
  std::vector<std::string> empty, other_layout, not_applicable;  // the coordinator lists them
  s->pairs = PlanPairs(s->specs, o, s->device, &empty, &other_layout, &not_applicable);
  s->renderer =
      std::make_unique<harness::Renderer>(paths.python, paths.render_script, templates_dir);
  s->renderer->SetLimits(o.timeout_seconds, &stop);
  const std::string executable =
      o.worker_executable.empty() ? "/proc/self/exe" : o.worker_executable;
  s->worker = std::make_unique<WorkerClient>(executable, s->device.backend, s->device.index,
                                             s->device.name, o.cache_dir);
  s->worker->SetSetupSeconds(std::max(o.setup_seconds, o.timeout_seconds));
  if (!s->worker->Start(stop)) return nullptr;
  std::optional<harness::PeakFlopsResult> peak =
      s->worker->MeasurePeak(PeakRequestOf(o, s->pairs), kPeakTimeoutSeconds, stop);
  if (!peak) return nullptr;
  s->peak = EncodePeakResult(*peak, false);
  s->supply =
      std::make_unique<ProgramSupply>(SupplyOptions{o.cache_dir, o.compile_jobs, o.timeout_seconds},
                                      s->device, *s->renderer, executable);
  return s;
}

class Server {
 public:
  Server(RankLink& link, const TuneOptions& o, Serving& s, const std::atomic<bool>& stop)
      : link_(link), o_(o), s_(s), stop_(stop) {}

  // Serves until done or stopped; true when the coordinator said done.
  bool Run() {
    while (!stop_) {
      while (std::optional<RankMessage> m = link_.Poll()) Take(*m);
      if (done_) return true;
      if (queue_.empty()) {
        if (std::optional<RankMessage> m = link_.Wait(std::chrono::seconds(1), &stop_)) Take(*m);
        continue;
      }
      const std::string request = std::move(queue_.front());
      queue_.pop_front();
      std::optional<std::string> reply = Serve(request);
      if (!reply) break;  // stopped under it
      link_.Send(kCoordinator, *reply);
    }
    return false;
  }

 private:
  const PlannedPair& PairOf(int64_t index) const {
    if (index < 0 || index >= static_cast<int64_t>(s_.pairs.size()))
      throw Error(ErrorCode::kInternal, "the coordinator names pair " + std::to_string(index) +
                                            " of a plan of " + std::to_string(s_.pairs.size()));
    return s_.pairs[static_cast<size_t>(index)];
  }

  // Queues a request; a config goes to the compile pool at once.
  void Take(const RankMessage& m) {
    const ClusterMessage kind = ClusterKind(m.payload);
    if (kind == ClusterMessage::kDone) {
      done_ = true;
      return;
    }
    if (kind == ClusterMessage::kMeasure) {
      const MeasureTask task = DecodeMeasureTask(m.payload);
      const PlannedPair& pair = PairOf(task.pair);
      s_.supply->Add(
          {pair.spec, pair.problem, pair.space.get(), Config::ParseKey(task.config_key)});
    } else if (kind != ClusterMessage::kBaseline && kind != ClusterMessage::kConfirm) {
      throw Error(ErrorCode::kInternal, "a device rank was sent a message only ranks send");
    }
    queue_.push_back(m.payload);
  }

  // The reply to one request; nullopt when stopped first.
  std::optional<std::string> Serve(const std::string& request) {
    switch (ClusterKind(request)) {
      case ClusterMessage::kMeasure: {
        const MeasureTask task = DecodeMeasureTask(request);
        const PlannedPair& pair = PairOf(task.pair);
        std::optional<Outcome> outcome = MeasureConfig(
            {*s_.supply, *s_.worker, BenchmarkPlanOf(o_), o_.timeout_seconds, s_.summary}, pair,
            Config::ParseKey(task.config_key), task.best_ms, stop_);
        if (!outcome) return std::nullopt;
        return EncodeMeasuredTask({task.pair, task.config_key, std::move(*outcome)});
      }
      case ClusterMessage::kBaseline: {
        const Wrapped w = DecodeWrapped(ClusterMessage::kBaseline, request);
        ProgramSupply::DeviceBusy busy(*s_.supply);
        std::optional<harness::BaselineResult> result = s_.worker->MeasureBaseline(
            DecodeBaseline(w.inner), w.routine, w.timeout_seconds, stop_);
        if (!result) return std::nullopt;
        return EncodeWrapped(ClusterMessage::kBaselineResult, EncodeBaselineResult(*result, false));
      }
      case ClusterMessage::kConfirm: {
        const Wrapped w = DecodeWrapped(ClusterMessage::kConfirm, request);
        ProgramSupply::DeviceBusy busy(*s_.supply);
        std::optional<std::vector<ConfirmResult>> results =
            s_.worker->Confirm(DecodeConfirm(w.inner), w.timeout_seconds, stop_);
        if (!results) return std::nullopt;
        return EncodeWrapped(ClusterMessage::kConfirmResult, EncodeConfirmResults(*results, false));
      }
      default:
        throw Error(ErrorCode::kInternal, "a device rank cannot serve this request");
    }
  }

  RankLink& link_;
  const TuneOptions& o_;
  Serving& s_;
  const std::atomic<bool>& stop_;
  std::deque<std::string> queue_;
  bool done_ = false;
};

// The device this rank serves (cluster_rank.hpp).
DeviceSelector ChosenDevice(const std::vector<DeviceSelector>& given, int local_index) {
  if (given.empty()) {
    DeviceSelector best = BestDevice();
    best.local = best.backend == Backend::kCuda;
    return LocalDevice(best, local_index);
  }
  const DeviceSelector& selector = given[static_cast<size_t>(local_index) % given.size()];
  if (!selector.local) return selector;
  // Among the node's ranks dealt a local selector of this backend, its
  // place picks its device: no two of them share one, and none may share
  // with a device of the backend named outright.
  int place = 0;
  for (int j = 0; j < local_index; ++j) {
    const DeviceSelector& earlier = given[static_cast<size_t>(j) % given.size()];
    place += earlier.local && earlier.backend == selector.backend;
  }
  for (const DeviceSelector& other : given) {
    if (other.local || !other.arch.empty() || other.backend != selector.backend) continue;
    const std::string backend = BackendName(selector.backend);
    const std::string named = backend + ":" + std::to_string(other.index);
    throw Error(ErrorCode::kBadArgument,
                backend + ":local and " + named + " both given: a rank dealt " + backend +
                    ":local could take " + named +
                    " too (two ranks on one device disturb each other's times)");
  }
  return LocalDevice(selector, place);
}

// After a failure told to the coordinator: waits for its kDone (it tells
// every rank once it knows), so no rank leaves before the others are told.
void AwaitDone(RankLink& link, const std::atomic<bool>& stop) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(10);
  while (!stop && std::chrono::steady_clock::now() < deadline) {
    std::optional<RankMessage> m = link.Wait(std::chrono::seconds(1), &stop);
    if (m && ClusterKind(m->payload) == ClusterMessage::kDone) return;
  }
}

}  // namespace

void RefuseToServe(RankLink& link, const std::string& host, const std::string& why,
                   const std::atomic<bool>& stop) {
  link.Send(kCoordinator,
            EncodeClusterFatal("rank " + std::to_string(link.rank()) + " on " + host + ": " + why));
  AwaitDone(link, stop);
  link.Send(kCoordinator, EncodeBye(stop));
}

int ServeDevice(RankLink& link, const TuneOptions& o, const std::vector<DeviceSelector>& given,
                int local_index, const std::string& host, const std::atomic<bool>& stop) {
  std::unique_ptr<Serving> serving;
  bool done = false;
  try {
    serving = Open(o, ChosenDevice(given, local_index), stop);
    if (serving) {
      RankHello hello;
      hello.device = serving->device;
      hello.host = host;
      hello.peak = serving->peak;
      hello.compile_jobs = serving->supply->pool_jobs();
      hello.slots = 1 + std::min<int64_t>(kMaxAhead, hello.compile_jobs);
      hello.plan = PlanText(serving->pairs);
      link.Send(kCoordinator, EncodeHello(hello));
      done = Server(link, o, *serving, stop).Run();
    }
  } catch (const Error& e) {
    if (serving) serving->worker->Stop();
    RefuseToServe(link, host, e.what(), stop);
    return 1;
  }
  if (serving) {
    serving->worker->Stop();
    serving->summary.worker_restarts = serving->worker->restarts();
    serving->summary.compile_wait_seconds = serving->supply->wait_seconds();
    link.Send(kCoordinator, EncodeWrapped(ClusterMessage::kShare, EncodeShare(serving->summary)));
  }
  link.Send(kCoordinator, EncodeBye(!done));
  return done ? 0 : 130;
}

}  // namespace beast
