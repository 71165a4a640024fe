// The XGBoost cost model (cost_model.hpp).
#include "beast/search/cost_model.hpp"

#include <xgboost/c_api.h>

#include <cmath>
#include <mutex>
#include <string>

#include "beast/core/error.hpp"

namespace beast {
namespace {

void Check(int rc, const char* what) {
  if (rc != 0) {
    throw Error(ErrorCode::kInternal,
                std::string("cost model: ") + what + ": " + XGBGetLastError());
  }
}

// A DMatrix that frees itself.
class Matrix {
 public:
  Matrix(const std::vector<float>& x, size_t width) {
    const bst_ulong rows = width ? x.size() / width : 0;
    Check(XGDMatrixCreateFromMat(x.data(), rows, width, NAN, &handle_), "a matrix");
  }
  ~Matrix() { XGDMatrixFree(handle_); }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

void Quiet() {
  static std::once_flag once;
  std::call_once(once, [] { XGBSetGlobalConfig("{\"verbosity\": 0}"); });
}

}  // namespace

CostModel::CostModel(const std::vector<float>& x, size_t width, const std::vector<float>& y,
                     const Options& o) {
  BEAST_CHECK(width > 0 && x.size() == y.size() * width);
  Quiet();
  Matrix train(x, width);
  Check(XGDMatrixSetFloatInfo(train.get(), "label", y.data(), y.size()), "its labels");
  DMatrixHandle matrices[] = {train.get()};
  BoosterHandle booster = nullptr;
  Check(XGBoosterCreate(matrices, 1, &booster), "a booster");
  booster_ = booster;
  const std::pair<const char*, std::string> params[] = {
      {"nthread", "1"},  // deterministic, and the compile pool keeps the other cores
      {"tree_method", "exact"},
      {"objective", "reg:squarederror"},
      {"max_depth", std::to_string(o.max_depth)},
      {"eta", std::to_string(o.eta)},
      {"subsample", std::to_string(o.subsample)},
      {"colsample_bytree", std::to_string(o.colsample_bytree)},
      {"seed", std::to_string(o.seed % 2147483647)},
  };
  for (const auto& [name, value] : params)
    Check(XGBoosterSetParam(booster, name, value.c_str()), name);
  for (int round = 0; round < o.rounds; ++round)
    Check(XGBoosterUpdateOneIter(booster, round, train.get()), "a boosting round");
}

CostModel::~CostModel() { XGBoosterFree(booster_); }

std::vector<float> CostModel::Predict(const std::vector<float>& x, size_t width) const {
  if (x.empty()) return {};
  Matrix rows(x, width);
  bst_ulong length = 0;
  const float* out = nullptr;
  Check(XGBoosterPredict(booster_, rows.get(), 0, 0, 0, &length, &out), "a prediction");
  return std::vector<float>(out, out + length);
}

}  // namespace beast
