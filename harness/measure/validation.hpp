// Validation of a kernel's float output against the double-accumulated CPU
// reference, with a tolerance derived from the rounding error of float sums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace beast::harness {

// Unit roundoff of float (round to nearest): u = 2^-24; of double, 2^-53.
constexpr double kUnitRoundoff32 = 0x1p-24;
constexpr double kUnitRoundoff64 = 0x1p-53;
// Each output is a sum of L products. In float, any summation order, with or
// without FMA, obeys |fl(sum) - sum| <= L u sum|x_i y_i| (barring underflow;
// Jeannerod & Rump, SIAM J. Matrix Anal. Appl. 34(2), 2013, sharpening the
// classic gamma_L bound of Higham 3.1). The reference, accurate to double
// precision, is rounded to float once: at most u |ref| <= u sum|x_i y_i| more. So the
// float result lies within (L + 1) u abs_ref of the reference, and c = 2 with
// L >= 1 covers it.
constexpr double kValidationFactor = 2.0;
// Absolute slack for outputs whose |sum| is 0 or subnormal, where GPUs may
// flush to zero; far below any value a real problem produces.
constexpr double kValidationTiny = 1e-30;

// The rounding a kernel's stored result carries beyond its accumulation:
// f16 and bf16 are storage types that accumulate in float (u = 2^-24) and
// round the result once into 16 bits (u = 2^-11 for f16, 2^-8 for bf16).
// The float argument above then gives |y - ref| <= (L u + 1 u_store)
// abs_ref (1 + L u) + u abs_ref, inside 2 (L u + u_store) abs_ref; an f16
// output in its subnormal range is a multiple of 2^-24, at most 2^-25 from
// the value rounded, which the absolute slack covers.
struct StoredRounding {
  double accumulate_u;  // unit roundoff of the type the sums are made in
  double store_u;       // one rounding into the stored type (0: the same type)
  double tiny;          // absolute slack for outputs near zero
};
constexpr StoredRounding kStoredF16{kUnitRoundoff32, 0x1p-11, 0x1p-25};
constexpr StoredRounding kStoredBf16{kUnitRoundoff32, 0x1p-8, kValidationTiny};
// TF32 tensor cores (math=tf32) round each input of a product to 10
// mantissa bits first: by truncation, |x - tf32(x)| < 2^-10 |x| (2^-11 when
// rounded to nearest), so a product x w is off by less than 2^-9 |x w|
// before the f32 sum: the same form with 2^-10 as the extra rounding (the
// bound's factor c = 2 doubles it) and an f32 result.
constexpr StoredRounding kTf32Inputs{kUnitRoundoff32, 0x1p-10, kValidationTiny};

// The bound above is the worst case: every rounding at its largest, all of
// one sign. It grows with L u while the errors of a right kernel grow about
// with sqrt(L) u: rounding errors of random data are independent with mean
// zero, so their sum's standard deviation is at most sqrt(L) u abs_ref
// (Higham & Mary, SIAM J. Sci. Comput. 41(5), 2019: the probabilistic
// bound). At large L the worst case then lets a kernel that drops a term
// pass (K = 8192: a tolerance near 2, and no term above 1). So the outputs
// are also checked together: the root mean square of |y_i - ref_i| over
// the probabilistic scale (sqrt(L) u + store_u) abs_ref_i + tiny must not
// exceed the same factor c. Under that model its square has an expectation
// of at most 1; a right kernel's is far below (its partial sums are far
// below abs_ref), a kernel that drops a term or a channel far above. Only
// with enough outputs for a mean to mean something, and only where
// sqrt(L) is well below L. It leans on the inputs being centred (uniform in
// [-1, 1), as harness::RandomInputs makes them): with inputs all of one
// sign, a sum that rounds toward zero (some tensor cores) drifts one way
// and its error grows with L, not sqrt(L).
constexpr size_t kRmsMinOutputs = 32;
constexpr int64_t kRmsMinReduction = 16;

struct ValidationResult {
  bool ok = false;
  // max over i of |y_i - ref_i| / (L u abs_ref_i + tiny): the error in units
  // of the bound's own scale, so ok means max_error <= kValidationFactor.
  // Infinity when y holds NaN or infinity.
  double max_error = 0;
  int64_t worst_index = -1;  // the element of max_error (first non-finite y if any); -1 if none
  int64_t nan_count = 0;     // elements of y that are NaN or infinite
  int64_t fail_count = 0;    // elements outside the bound (non-finite ones included)
  // The root mean square of the errors on the probabilistic scale (above);
  // 0 when it is not checked (too few outputs, a short reduction, or a
  // non-finite output).
  double rms_error = 0;
  bool rms_failed = false;  // rms_error > kValidationFactor
};

// Checks y against ref element by element: element i passes when y_i is
// finite and |y_i - ref_i| <= c L u abs_ref_i + tiny (and all of them
// together by their root mean square, above), with abs_ref the
// reference over absolute values and L = reduction_length, the number of
// terms per output (conv: C/groups*R*S, plus 1 with a bias; GEMM: K). Throws
// Error(kBadArgument) for reduction_length < 1 or null arrays with count > 0.
ValidationResult Validate(const float* y, const float* ref, const float* abs_ref, size_t count,
                          int64_t reduction_length);
// The same for an f64 kernel against the reference kept in double (the
// bound's argument holds with u = 2^-53, the reference's own error, at most
// about L 2^-53 |sum| in double accumulation, inside it).
ValidationResult Validate(const double* y, const double* ref, const double* abs_ref, size_t count,
                          int64_t reduction_length);
// The same for a result stored in a narrower type than it was summed in (y
// converted back to float): element i passes when |y_i - ref_i| <= c (L
// accumulate_u + store_u) abs_ref_i + c tiny.
ValidationResult Validate(const float* y, const float* ref, const float* abs_ref, size_t count,
                          int64_t reduction_length, const StoredRounding& rounding);

// The one line a wrong result is recorded with: "F of N outputs wrong (K not
// finite); worst at I: got Y, expected R".
std::string DescribeWrongResult(const ValidationResult& v, const float* y, const float* ref,
                                size_t count);
std::string DescribeWrongResult(const ValidationResult& v, const double* y, const double* ref,
                                size_t count);

}  // namespace beast::harness
