// Launch helpers shared by the backends (launch.hpp).
#include "harness/measure/launch.hpp"

namespace beast::harness {

std::string GeometryText(const LaunchGeometry& g) {
  auto triple = [&g](const size_t* v) {
    std::string text;
    for (int i = 0; i < g.dims && i < 3; ++i) text += (i ? "x" : "") + std::to_string(v[i]);
    return text;
  };
  return "global " + triple(g.global) + ", local " + triple(g.local);
}

std::vector<double> BenchmarkLaunches(const std::function<LaunchResult()>& launch,
                                      const BenchmarkPlan& plan, std::string* failure) {
  failure->clear();
  return Benchmark(
      [&]() -> std::optional<double> {
        LaunchResult r = launch();
        if (!r.ok()) {
          *failure = r.message;
          return std::nullopt;
        }
        return r.kernel_ms;
      },
      plan, nullptr);
}

}  // namespace beast::harness
