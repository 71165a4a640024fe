// space_bench: Google Benchmark of the space engine on realistic tuning
// spaces (tests/bench/spaces: a CLBlast-Xgemm-like space of 2.25e9 raw
// points, a direct-convolution space of 1.9e7, and the T1 spaces of Kernel
// Tuner's benchmark suite): Count() on one thread and on every core,
// Explain(), Sample(), a full Enumerate(), and the naive Cartesian filter
// (naive_filter.hpp) on the same spaces; a summary of naive/beast ratios
// follows the table. Not a CTest test: run build/tests/bench/space_bench.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/space/bound_space.hpp"
#include "beast/space/t1_import.hpp"
#include "naive_filter.hpp"

namespace beast::bench {
namespace {

// The naive filter walks at most about this many raw points; beyond, an
// evenly spread share of the space, and its time is extrapolated.
constexpr double kNaiveBudget = 2.5e7;

struct Space {
  std::string name;
  SpaceSpec spec;
  std::vector<std::pair<std::string, int64_t>> fixed;  // names the naive filter binds
  std::unique_ptr<BoundSpace> space;
  BindOptions options;
  Problem problem;
  DeviceInfo device;
  bool has_problem = false;

  std::unique_ptr<BoundSpace> Bind() const {
    return has_problem ? std::make_unique<BoundSpace>(spec, problem, device, options)
                       : std::make_unique<BoundSpace>(spec, fixed, options);
  }
};

// A device like an NVIDIA V100: 1024 threads and 48 KiB of local memory per
// work-group, 80 compute units.
DeviceInfo BenchDevice() {
  DeviceInfo d;
  d.name = "benchmark device";
  d.limits.max_work_group_size = 1024;
  d.limits.max_work_item_sizes[0] = d.limits.max_work_item_sizes[1] = 1024;
  d.limits.max_work_item_sizes[2] = 64;
  d.limits.local_mem_bytes = 49152;
  d.limits.compute_units = 80;
  d.limits.warp_size = 32;
  d.limits.max_registers_per_thread = 255;
  return d;
}

std::vector<std::unique_ptr<Space>> LoadSpaces() {
  const std::string dir = BEAST_BENCH_SPACES_DIR;
  std::vector<std::unique_ptr<Space>> spaces;
  for (const auto& [name, problem] : std::vector<std::pair<std::string, std::string>>{
           {"bench/xgemm", "gemm:M=512,N=512,K=512"},
           {"bench/conv_direct", "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"}}) {
    auto s = std::make_unique<Space>();
    s->name = name;
    s->spec = SpaceSpec::Load(dir, name);
    s->problem = Problem::Parse(problem);
    s->device = BenchDevice();
    s->has_problem = true;
    for (const auto& [k, v] : s->problem.Variables()) s->fixed.emplace_back(k, v);
    for (const auto& [k, v] : s->device.Variables()) s->fixed.emplace_back(k, v);
    s->space = s->Bind();
    spaces.push_back(std::move(s));
  }
  for (const std::string t1 : {"convolution", "dedispersion", "gemm", "hotspot"}) {
    auto s = std::make_unique<Space>();
    s->name = "t1/" + t1 + "_milo";
    std::string path = dir + "/t1/" + t1 + "_milo.json";
    s->spec = LoadT1(path);
    s->space = s->Bind();
    spaces.push_back(std::move(s));
  }
  return spaces;
}

std::vector<std::unique_ptr<Space>>& Spaces() {
  static std::vector<std::unique_ptr<Space>> spaces = LoadSpaces();
  return spaces;
}

unsigned AllThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Seconds per iteration of each benchmark, and what the naive filter walked.
std::map<std::string, double> seconds;
std::map<std::string, std::string> naive_notes;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void BM_Count(benchmark::State& state, const Space* s, unsigned threads) {
  uint64_t count = 0;
  double start = Now();
  for (auto _ : state) {
    count = s->space->Count(threads);
    benchmark::DoNotOptimize(count);
  }
  seconds["count" + std::to_string(threads) + "/" + s->name] = (Now() - start) / state.iterations();
  state.counters["valid"] = static_cast<double>(count);
  state.counters["raw"] = static_cast<double>(s->space->RawSize());
}

void BM_Naive(benchmark::State& state, const Space* s) {
  NaiveFilter naive(s->spec, s->fixed);
  double raw = static_cast<double>(s->space->RawSize());
  size_t depth = 0;
  uint64_t stride = 1;
  if (raw > kNaiveBudget) {
    stride = static_cast<uint64_t>(std::ceil(raw / kNaiveBudget));
    depth = naive.DepthFor(4 * stride);
    if (depth == 0) stride = 1;
  }
  NaiveFilter::Result r;
  double start = Now();
  for (auto _ : state) {
    r = naive.Run(depth, stride);
    benchmark::DoNotOptimize(r.valid);
  }
  double per_run = (Now() - start) / state.iterations();
  double extrapolated = per_run * raw / static_cast<double>(r.walked);
  seconds["naive/" + s->name] = extrapolated;
  state.counters["walked"] = static_cast<double>(r.walked);
  state.counters["share"] = static_cast<double>(r.walked) / raw;
  state.counters["extrapolated_s"] = extrapolated;
  if (stride == 1) {
    naive_notes[s->name] = "walked every raw point";
    if (r.valid != s->space->Count()) state.SkipWithError("the naive filter and Count() disagree");
  } else {
    char note[256];
    std::snprintf(note, sizeof note,
                  "EXTRAPOLATED from %.2f%% of the raw points: every %lluth combination of %s",
                  100.0 * static_cast<double>(r.walked) / raw,
                  static_cast<unsigned long long>(stride), naive.ParamNames(depth).c_str());
    naive_notes[s->name] = note;
    state.SetLabel(note);
  }
}

void BM_Explain(benchmark::State& state, const Space* s) {
  for (auto _ : state) {
    SpaceReport report = s->space->Explain();
    benchmark::DoNotOptimize(report.valid);
  }
}

// 1000 configs drawn from a freshly bound space (At() by subtree counts).
void BM_Sample(benchmark::State& state, const Space* s) {
  uint64_t seed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<BoundSpace> fresh = s->Bind();
    state.ResumeTiming();
    std::vector<Config> sample = fresh->Sample(1000, ++seed);
    benchmark::DoNotOptimize(sample.data());
  }
}

void BM_Enumerate(benchmark::State& state, const Space* s, unsigned threads) {
  size_t n = 0;
  for (auto _ : state) {
    n = s->space->Enumerate(SIZE_MAX, threads).size();
    benchmark::DoNotOptimize(n);
  }
  state.counters["configs"] = static_cast<double>(n);
}

void Register() {
  for (const auto& owned : Spaces()) {
    const Space* s = owned.get();
    benchmark::RegisterBenchmark(("Count/" + s->name + "/threads:1").c_str(), BM_Count, s, 1u)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(
        ("Count/" + s->name + "/threads:" + std::to_string(AllThreads())).c_str(), BM_Count, s,
        AllThreads())
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    // 0: the engine shares the walk only where it estimates that pays off.
    benchmark::RegisterBenchmark(("Count/" + s->name + "/threads:auto").c_str(), BM_Count, s, 0u)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Naive/" + s->name).c_str(), BM_Naive, s)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    benchmark::RegisterBenchmark(("Explain/" + s->name).c_str(), BM_Explain, s)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("Sample1000/" + s->name).c_str(), BM_Sample, s)
        ->Unit(benchmark::kMillisecond);
    for (unsigned threads : {1u, AllThreads()}) {
      benchmark::RegisterBenchmark(
          ("Enumerate/" + s->name + "/threads:" + std::to_string(threads)).c_str(), BM_Enumerate, s,
          threads)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
}

void PrintSummary() {
  std::string all = std::to_string(AllThreads());
  std::printf(
      "\nSummary: milliseconds per Count() on 1 thread, on %s, and with threads chosen by the "
      "engine;\n"
      "naive = the Cartesian filter with the same compiled expressions; naive/beast against 1 "
      "thread\n",
      (all + " threads").c_str());
  std::printf("%-20s %10s %8s %10s %10s %10s %12s %12s\n", "space", "raw", "valid", "count 1t",
              ("count " + all + "t").c_str(), "auto", "naive ms", "naive/beast");
  for (const auto& s : Spaces()) {
    auto one = seconds.find("count1/" + s->name);
    auto naive = seconds.find("naive/" + s->name);
    if (one == seconds.end() || naive == seconds.end()) continue;
    auto ms = [&](const std::string& key) {
      auto it = seconds.find(key + "/" + s->name);
      return it == seconds.end() ? 0.0 : it->second * 1e3;
    };
    std::printf("%-20s %10.3g %8llu %10.3f %10.3f %10.3f %12.1f %11.0fx  %s\n", s->name.c_str(),
                static_cast<double>(s->space->RawSize()),
                static_cast<unsigned long long>(s->space->Count()), one->second * 1e3,
                ms("count" + all), ms("count0"), naive->second * 1e3, naive->second / one->second,
                naive_notes[s->name].c_str());
  }
}

}  // namespace
}  // namespace beast::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  beast::bench::Register();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  beast::bench::PrintSummary();
  return 0;
}
