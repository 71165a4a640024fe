// Element-wise check of a kernel output against the reference within the
// float rounding bound of its reduction length.
#include "harness/measure/validation.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "beast/core/error.hpp"

namespace beast::harness {

namespace {

// The check of any precision: `rounding` the unit roundoffs of the type the
// kernel computes in and of the one it stores in.
template <typename T>
ValidationResult ValidateWith(const T* y, const T* ref, const T* abs_ref, size_t count,
                              int64_t reduction_length, const StoredRounding& rounding) {
  if (reduction_length < 1) {
    throw Error(ErrorCode::kBadArgument, "validation needs a reduction length >= 1, not " +
                                             std::to_string(reduction_length));
  }
  if (count > 0 && (y == nullptr || ref == nullptr || abs_ref == nullptr)) {
    throw Error(ErrorCode::kBadArgument, "validation given a null array");
  }
  const double length = static_cast<double>(reduction_length);
  const double scale = length * rounding.accumulate_u + rounding.store_u;
  const double rms_scale = std::sqrt(length) * rounding.accumulate_u + rounding.store_u;
  double rms_sum = 0;
  ValidationResult result;
  for (size_t i = 0; i < count; ++i) {
    const int64_t index = static_cast<int64_t>(i);
    if (!std::isfinite(y[i])) {
      if (result.nan_count == 0) {
        result.max_error = std::numeric_limits<double>::infinity();
        result.worst_index = index;
      }
      ++result.nan_count;
      ++result.fail_count;
      continue;
    }
    const double diff = std::fabs(static_cast<double>(y[i]) - static_cast<double>(ref[i]));
    const double abs = std::fabs(static_cast<double>(abs_ref[i]));
    double error = diff / (scale * abs + rounding.tiny);
    const double rms_term = diff / (rms_scale * abs + rounding.tiny);
    rms_sum += rms_term * rms_term;
    // A non-finite reference (never from finite inputs) cannot vouch for y.
    if (std::isnan(error)) error = std::numeric_limits<double>::infinity();
    if (error > kValidationFactor) ++result.fail_count;
    if (result.nan_count == 0 && (result.worst_index < 0 || error > result.max_error)) {
      result.max_error = error;
      result.worst_index = index;
    }
  }
  if (result.nan_count == 0 && count >= kRmsMinOutputs && reduction_length >= kRmsMinReduction) {
    result.rms_error = std::sqrt(rms_sum / static_cast<double>(count));
    if (std::isnan(result.rms_error)) result.rms_error = std::numeric_limits<double>::infinity();
    result.rms_failed = result.rms_error > kValidationFactor;
  }
  result.ok = result.fail_count == 0 && !result.rms_failed;
  return result;
}

template <typename T>
std::string Describe(const ValidationResult& v, const T* y, const T* ref, size_t count) {
  char buf[320];
  if (v.fail_count == 0 && v.rms_failed) {
    std::snprintf(buf, sizeof buf,
                  "outputs wrong on the whole: root mean square error %.3g times the sum's "
                  "probabilistic bound (at most %g), each output within the worst case; "
                  "largest at %lld: got %g, expected %g",
                  v.rms_error, kValidationFactor, (long long)v.worst_index,
                  v.worst_index >= 0 ? static_cast<double>(y[v.worst_index]) : 0.0,
                  v.worst_index >= 0 ? static_cast<double>(ref[v.worst_index]) : 0.0);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "%lld of %zu outputs wrong (%lld not finite); worst at %lld: got %g, expected %g",
                (long long)v.fail_count, count, (long long)v.nan_count, (long long)v.worst_index,
                v.worst_index >= 0 ? static_cast<double>(y[v.worst_index]) : 0.0,
                v.worst_index >= 0 ? static_cast<double>(ref[v.worst_index]) : 0.0);
  return buf;
}

}  // namespace

ValidationResult Validate(const float* y, const float* ref, const float* abs_ref, size_t count,
                          int64_t reduction_length) {
  return ValidateWith(y, ref, abs_ref, count, reduction_length,
                      StoredRounding{kUnitRoundoff32, 0, kValidationTiny});
}

ValidationResult Validate(const float* y, const float* ref, const float* abs_ref, size_t count,
                          int64_t reduction_length, const StoredRounding& rounding) {
  return ValidateWith(y, ref, abs_ref, count, reduction_length, rounding);
}

ValidationResult Validate(const double* y, const double* ref, const double* abs_ref, size_t count,
                          int64_t reduction_length) {
  return ValidateWith(y, ref, abs_ref, count, reduction_length,
                      StoredRounding{kUnitRoundoff64, 0, kValidationTiny});
}

std::string DescribeWrongResult(const ValidationResult& v, const float* y, const float* ref,
                                size_t count) {
  return Describe(v, y, ref, count);
}

std::string DescribeWrongResult(const ValidationResult& v, const double* y, const double* ref,
                                size_t count) {
  return Describe(v, y, ref, count);
}

}  // namespace beast::harness
