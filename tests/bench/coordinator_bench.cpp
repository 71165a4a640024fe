// What the coordinator of a run under mpirun costs per result (issue 18):
// receiving an outcome's message, recording it (its own SQLite transaction,
// committed), feeding it to the trajectory, and dealing the next config —
// the strategy's proposals included — to the rank that freed a slot. The
// ranks are simulated: each outcome is made up at once (a time drawn from the
// config), so the loop runs as fast as the coordinator alone can, on the real
// gemm/tiled space of a 4096^3 SGEMM bound to an H100 spec table, with a
// real database. Messages go through the real wire encoding (encode, then
// decode), not through MPI: a small MPI message on one node costs a few
// microseconds, far below what is measured here.
// Run build/tests/bench/coordinator_bench by hand; items_per_second is the
// configs per second one coordinator sustains.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "beast/cluster/cluster_protocol.hpp"
#include "beast/cluster/cluster_schedule.hpp"
#include "beast/core/paths.hpp"
#include "beast/problem/device_spec_table.hpp"
#include "beast/space/space_spec.hpp"
#include "results_db/store.hpp"

namespace beast {
namespace {

// A made-up median for `key`: fixed per config, spread over 1..10 ms.
double MadeUpMs(const std::string& key) {
  return 1.0 + static_cast<double>(std::hash<std::string>()(key) % 9000) / 1000.0;
}

// One whole pair of `budget` configs dealt to `ranks` ranks of 2 slots each.
void TunePairWithSimulatedRanks(benchmark::State& state, const std::string& strategy) {
  const int ranks = static_cast<int>(state.range(0));
  const uint64_t budget = static_cast<uint64_t>(state.range(1));
  const Paths paths = Paths::Default();
  const std::vector<SpaceSpec> specs = {SpaceSpec::Load(paths.templates_dir, "gemm/tiled")};
  const DeviceInfo device = LoadDeviceSpec(paths.constraints_dir, "sm_90");
  const std::filesystem::path db = std::filesystem::temp_directory_path() /
                                   ("beast_coordinator_bench_" + std::to_string(getpid()) + ".db");
  uint64_t results = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove(db);
    TuneOptions o;
    o.templates = {"gemm/tiled"};
    o.problems = {Problem::Parse("gemm:M=4096,N=4096,K=4096")};
    o.max_configs = budget;
    o.strategy = strategy;
    o.progress = false;
    o.transfer = false;
    results_db::Store store = results_db::Store::Open(db.string());
    const int64_t run = store.BeginRun("coordinator_bench", "bench");
    const int64_t device_id =
        store.UpsertDevice({device.backend, device.name, device.vendor, device.driver_version,
                            device.arch, DeviceLimitsToJson(device.limits)});
    ClusterSchedule schedule(o, store, run, std::chrono::steady_clock::time_point::max());
    schedule.AddGroup(device, device_id, PlanPairs(specs, o, device), TuneSummary{});
    for (int r = 1; r <= ranks; ++r) schedule.AddRank(r, "node", 2, 0);
    std::atomic<bool> stop{false};
    std::deque<std::pair<int, std::string>> flying;  // (rank, encoded task)
    state.ResumeTiming();
    while (true) {
      for (auto& [rank, task] : schedule.Deal(stop))
        flying.emplace_back(rank, EncodeMeasureTask(task));
      if (flying.empty()) break;
      const auto [rank, sent] = std::move(flying.front());
      flying.pop_front();
      // The rank's side, made up: the task decoded, an outcome encoded.
      const MeasureTask task = DecodeMeasureTask(sent);
      MeasuredTask done{task.pair, task.config_key, {}};
      const double ms = MadeUpMs(task.config_key);
      done.outcome.samples_ms = {ms, ms, ms};
      done.outcome.median_ms = ms;
      done.outcome.spread = 0;
      done.outcome.max_error = 0;
      const std::string reply = EncodeMeasuredTask(done);
      // The coordinator's side: decode, record, feed, deal again.
      schedule.Land(rank, DecodeMeasuredTask(reply));
      ++results;
    }
    state.PauseTiming();
    store.FinishRun(run, results_db::RunEnd::kFinished);
    state.ResumeTiming();
  }
  std::filesystem::remove(db);
  state.SetItemsProcessed(static_cast<int64_t>(results));
}

void BM_CoordinatorModel(benchmark::State& state) { TunePairWithSimulatedRanks(state, "model"); }
void BM_CoordinatorRandom(benchmark::State& state) { TunePairWithSimulatedRanks(state, "random"); }

BENCHMARK(BM_CoordinatorModel)
    ->Args({4, 400})
    ->Args({64, 400})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3);
BENCHMARK(BM_CoordinatorRandom)
    ->Args({4, 400})
    ->Args({64, 400})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3);

}  // namespace
}  // namespace beast

BENCHMARK_MAIN();
