// Inputs and reference outputs of a problem (problem_data.hpp).
#include "beast/worker/problem_data.hpp"

#include <algorithm>
#include <cstring>

#include "beast/core/error.hpp"
#include "beast/problem/problem_buffers.hpp"
#include "beast/problem/storage16.hpp"
#include "harness/measure/reference.hpp"
#include "harness/measure/winograd_bound.hpp"

namespace beast {

ProblemData ZeroProblemData(const Problem& problem) {
  ProblemData d;
  d.dtype = problem.dtype();
  d.tf32 = problem.tf32();
  d.problem_key = problem.Key();
  if (problem.op() == OpKind::kConv2d) {
    const Conv2dShape& s = problem.conv();
    d.input0.assign(harness::Conv2dInputCount(s), 0.0f);
    d.input1.assign(harness::Conv2dFilterCount(s), 0.0f);
    if (s.bias) d.bias.assign(static_cast<size_t>(s.k), 0.0f);
    d.output_count = harness::Conv2dOutputCount(s);
    d.reduction_length = harness::Conv2dReductionLength(s);
  } else {
    const GemmShape& g = problem.gemm();
    d.input0.assign(static_cast<size_t>(g.m * g.k), 0.0f);
    d.input1.assign(static_cast<size_t>(g.k * g.n), 0.0f);
    d.output_count = static_cast<size_t>(g.m * g.n);
    d.reduction_length = g.k;
  }
  return d;
}

namespace {

// The value a 16-bit storage type holds for `value` (float itself for f32 and
// f64, whose buffers hold every float exactly).
float Stored(DType dtype, float value) {
  if (dtype == DType::kF16) return F16BitsToFloat(FloatToF16Bits(value));
  if (dtype == DType::kBF16) return Bf16BitsToFloat(FloatToBf16Bits(value));
  return value;
}

// Random inputs rounded to what the device's buffers hold, so the reference
// is computed from exactly the values the kernel reads.
std::vector<float> StoredInputs(DType dtype, size_t count, uint64_t seed) {
  std::vector<float> values = harness::RandomInputs(count, seed);
  for (float& v : values) v = Stored(dtype, v);
  return values;
}

}  // namespace

ProblemData MakeProblemData(const Problem& problem) {
  ProblemData d;
  d.dtype = problem.dtype();
  d.tf32 = problem.tf32();
  d.problem_key = problem.Key();
  const bool f64 = d.dtype == DType::kF64;
  // The reference in the precision the kernel's result is checked in.
  auto keep = [&](size_t count) {
    if (f64) {
      d.reference64.resize(count);
      d.abs_reference64.resize(count);
    } else {
      d.reference.resize(count);
      d.abs_reference.resize(count);
    }
  };
  if (problem.op() == OpKind::kConv2d) {
    const Conv2dShape& s = problem.conv();
    d.input0 = StoredInputs(d.dtype, harness::Conv2dInputCount(s), 1);
    d.input1 = StoredInputs(d.dtype, harness::Conv2dFilterCount(s), 2);
    if (s.bias) d.bias = StoredInputs(d.dtype, static_cast<size_t>(s.k), 3);
    d.output_count = harness::Conv2dOutputCount(s);
    d.reduction_length = harness::Conv2dReductionLength(s);
    keep(d.output_count);
    const float* bias = s.bias ? d.bias.data() : nullptr;
    if (f64) {
      harness::ReferenceConv2d(s, d.input0.data(), d.input1.data(), bias, d.reference64.data(),
                               d.abs_reference64.data());
    } else {
      harness::ReferenceConv2d(s, d.input0.data(), d.input1.data(), bias, d.reference.data(),
                               d.abs_reference.data());
    }
  } else {
    const GemmShape& g = problem.gemm();
    d.input0 = StoredInputs(d.dtype, static_cast<size_t>(g.m * g.k), 1);
    d.input1 = StoredInputs(d.dtype, static_cast<size_t>(g.k * g.n), 2);
    d.output_count = static_cast<size_t>(g.m * g.n);
    d.reduction_length = g.k;
    keep(d.output_count);
    if (f64) {
      harness::ReferenceGemm(g, d.input0.data(), d.input1.data(), d.reference64.data(),
                             d.abs_reference64.data());
    } else {
      harness::ReferenceGemm(g, d.input0.data(), d.input1.data(), d.reference.data(),
                             d.abs_reference.data());
    }
  }
  return d;
}

const ProblemData::WinogradScale& WinogradScaleOf(const ProblemData& data, int m) {
  auto it = data.winograd_scales.find(m);
  if (it != data.winograd_scales.end()) return it->second;
  const Problem problem = Problem::Parse(data.problem_key);
  if (problem.op() != OpKind::kConv2d)
    throw Error(ErrorCode::kBadArgument,
                "a Winograd kernel computes conv2d, not " + data.problem_key);
  const Conv2dShape& s = problem.conv();
  ProblemData::WinogradScale scale;
  scale.reduction_length = harness::WinogradReductionLength(s, m);
  std::vector<double> bound = harness::WinogradAbsBound(s, data.input0.data(), data.input1.data(),
                                                        s.bias ? data.bias.data() : nullptr, m);
  if (data.dtype == DType::kF64) {
    scale.abs64 = std::move(bound);
  } else {
    scale.abs.assign(bound.begin(), bound.end());
  }
  return data.winograd_scales.emplace(m, std::move(scale)).first->second;
}

void PrepareWinogradScale(const ProblemData& data, int m) {
  if (m > 0 && Problem::Parse(data.problem_key).op() == OpKind::kConv2d) WinogradScaleOf(data, m);
}

size_t ElementBytes(const ProblemData& data) { return static_cast<size_t>(DTypeBytes(data.dtype)); }

std::vector<unsigned char> DeviceElements(const ProblemData& data,
                                          const std::vector<float>& values) {
  std::vector<unsigned char> bytes(values.size() * ElementBytes(data));
  if (data.dtype == DType::kF64) {
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      std::memcpy(bytes.data() + i * sizeof v, &v, sizeof v);
    }
  } else if (data.dtype == DType::kF16 || data.dtype == DType::kBF16) {
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t bits =
          data.dtype == DType::kF16 ? FloatToF16Bits(values[i]) : FloatToBf16Bits(values[i]);
      std::memcpy(bytes.data() + i * sizeof bits, &bits, sizeof bits);
    }
  } else {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  return bytes;
}

size_t KeptBytes(const ProblemData& d) {
  const size_t host = (d.input0.size() + d.input1.size() + d.bias.size() + d.reference.size() +
                       d.abs_reference.size()) *
                          sizeof(float) +
                      (d.reference64.size() + d.abs_reference64.size()) * sizeof(double);
  const size_t device =
      (d.input0.size() + d.input1.size() + d.bias.size() + d.output_count) * ElementBytes(d);
  return host + device;
}

size_t ProblemShelfBytes(int64_t device_bytes) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(HostMemoryBytes(), 0)) / 16;
  if (device_bytes > 0) bytes = std::min(bytes, static_cast<size_t>(device_bytes) / 8);
  return bytes;
}

std::vector<float> StoredElementsAsFloat(DType dtype, const std::vector<uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    values[i] = dtype == DType::kF16 ? F16BitsToFloat(bits[i]) : Bf16BitsToFloat(bits[i]);
  return values;
}

}  // namespace beast
