// CostModel: gradient-boosted regression trees (XGBoost, through its C API:
// the library TVM's cost model is built on) fitted to configs' features and
// a target the strategy chooses (log time, clipped). Small data (tens to
// hundreds of rows) and one thread: a fit takes milliseconds and, with the
// same rows, seed and options, gives the same trees every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace beast {

class CostModel {
 public:
  struct Options {
    int rounds = 50;
    // Trees of 4 levels (16 leaves): at most a few dozen rows fall below the
    // clip the strategy sets, and deeper trees fitted those few rows' noise
    // (replays over 60 fresh seeds, README "How well it searches": depth 6
    // reached 0.904 of the optimum at 100 on the three convolution caches,
    // depth 4 0.924, the other recorded spaces unchanged).
    int max_depth = 4;
    double eta = 0.3;
    double subsample = 1.0;         // of rows, per tree
    double colsample_bytree = 1.0;  // of features, per tree
    uint64_t seed = 0;
  };
  // Fits targets `y` to the rows of `x` (row-major, `width` features each).
  // Throws Error(kInternal) when XGBoost refuses.
  CostModel(const std::vector<float>& x, size_t width, const std::vector<float>& y,
            const Options& options);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  // The predicted target of each row of `x` (`width` features each).
  std::vector<float> Predict(const std::vector<float>& x, size_t width) const;

 private:
  void* booster_ = nullptr;
};

}  // namespace beast
