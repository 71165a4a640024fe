// What the database door costs (issue 16): opening a 100,000-measurement
// database for writing, which runs SQLite's quick_check over every page,
// against opening it for reading, which does not. Google Benchmark; not a
// CTest test: run build/tests/bench/store_open_bench by hand.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "results_db/store.hpp"

namespace {

constexpr int kRows = 100000;

// A database of kRows ok measurements over 1000 configs and 100 problems,
// made once per process.
const std::string& Database() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("beast_store_open_bench_" + std::to_string(getpid()) + ".db"))
                              .string();
    results_db::Store store = results_db::Store::Open(p);
    results_db::Store::Batch batch(store);
    const int64_t run = store.BeginRun("bench", "bench");
    results_db::DeviceRecord device;
    device.name = "bench device";
    const int64_t device_id = store.UpsertDevice(device);
    const int64_t t = store.UpsertTemplate("gemm/tiled", "hash", "");
    for (int i = 0; i < kRows; ++i) {
      const int problem = i / 1000, config = i % 1000;
      results_db::MeasurementRecord m;
      m.run_id = run;
      m.device_id = device_id;
      m.problem_id = store.UpsertProblem("gemm:M=" + std::to_string(64 + problem), "gemm", 1e9);
      m.config_id = store.UpsertConfig(t, "MWG=" + std::to_string(config), "h",
                                       "{\"MWG\": " + std::to_string(config) + "}");
      m.samples_ms = {1.0 + config, 1.1 + config, 1.2 + config};
      m.median_ms = 1.1 + config;
      m.strategy = "model";
      store.RecordMeasurement(m);
    }
    batch.Commit();
    return p;
  }();
  return path;
}

void OpenForWriting(benchmark::State& state) {
  const std::string& path = Database();
  for (auto _ : state) benchmark::DoNotOptimize(results_db::Store::Open(path));
  state.counters["bytes"] = static_cast<double>(std::filesystem::file_size(path));
}

void OpenForReading(benchmark::State& state) {
  const std::string& path = Database();
  for (auto _ : state) benchmark::DoNotOptimize(results_db::Store::OpenExisting(path));
}

BENCHMARK(OpenForWriting)->Unit(benchmark::kMillisecond);
BENCHMARK(OpenForReading)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  std::filesystem::remove(Database());
  std::filesystem::remove(Database() + "-wal");
  std::filesystem::remove(Database() + "-shm");
  return 0;
}
