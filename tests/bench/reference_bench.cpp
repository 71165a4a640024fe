// What the CPU reference of a large problem costs (every tuning of a problem
// computes it once before its first check): ReferenceGemm (row blocks of 8,
// split over the cores) against the loop it replaced (one row at a time, one
// thread), measured in the same run, on a 1024^3 SGEMM; and ReferenceConv2d
// on a ResNet-50 layer. A 4096^3 SGEMM's reference outlasted a 90 s tuning
// step on an H200 machine's 16 cores before the change. Google Benchmark; not
// a CTest test: run build/tests/bench/reference_bench by hand.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "harness/measure/reference.hpp"

namespace {

using beast::harness::RandomInputs;

constexpr int64_t kSize = 1024;

// The reference GEMM as it was: C's rows one by one on one thread, each
// streaming all of B.
void RowByRowGemm(const float* a, const float* b, float* c) {
  std::vector<double> acc(kSize);
  for (int64_t m = 0; m < kSize; ++m) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t k = 0; k < kSize; ++k) {
      const double am = a[m * kSize + k];
      const float* row = b + k * kSize;
      for (int64_t n = 0; n < kSize; ++n) acc[n] += am * static_cast<double>(row[n]);
    }
    for (int64_t n = 0; n < kSize; ++n) c[m * kSize + n] = static_cast<float>(acc[n]);
  }
}

void BM_GemmRowByRowOneThread(benchmark::State& state) {
  const std::vector<float> a = RandomInputs(kSize * kSize, 1), b = RandomInputs(kSize * kSize, 2);
  std::vector<float> c(kSize * kSize);
  for (auto _ : state) {
    RowByRowGemm(a.data(), b.data(), c.data());
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_GemmRowByRowOneThread)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReferenceGemm(benchmark::State& state) {
  const std::vector<float> a = RandomInputs(kSize * kSize, 1), b = RandomInputs(kSize * kSize, 2);
  std::vector<float> c(kSize * kSize);
  beast::GemmShape shape;
  shape.m = shape.n = shape.k = kSize;
  // The same result bit for bit as the loop it replaced, or no timing.
  std::vector<float> before(kSize * kSize);
  RowByRowGemm(a.data(), b.data(), before.data());
  beast::harness::ReferenceGemm(shape, a.data(), b.data(), c.data(), nullptr);
  if (c != before) state.SkipWithError("ReferenceGemm differs from the row-by-row loop");
  for (auto _ : state) {
    beast::harness::ReferenceGemm(shape, a.data(), b.data(), c.data(), nullptr);
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_ReferenceGemm)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReferenceConv2dResNet(benchmark::State& state) {
  beast::Conv2dShape shape;
  shape.n = 4, shape.c = 64, shape.h = 56, shape.w = 56, shape.k = 64, shape.r = 3, shape.s = 3;
  shape.pad_h = shape.pad_w = 1;
  const std::vector<float> x = RandomInputs(beast::harness::Conv2dInputCount(shape), 3);
  const std::vector<float> w = RandomInputs(beast::harness::Conv2dFilterCount(shape), 4);
  std::vector<float> y(beast::harness::Conv2dOutputCount(shape));
  for (auto _ : state) {
    beast::harness::ReferenceConv2d(shape, x.data(), w.data(), nullptr, y.data(), nullptr);
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_ReferenceConv2dResNet)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
