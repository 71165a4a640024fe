// One kernel argument in beast's contract, whatever the backend: a device
// buffer (OpenClBuffer, CudaBuffer) or a scalar. One definition for both
// backends, so the worker builds argument lists alike for each.
#pragma once

#include <cstdint>

namespace beast::harness {

template <typename Buffer>
struct KernelArg {
  enum class Kind { kBuffer, kInt32, kFloat };
  KernelArg(const Buffer& buffer) : kind(Kind::kBuffer), buffer(buffer) {}  // NOLINT
  static KernelArg Int32(int32_t value) {
    KernelArg arg{Buffer()};
    arg.kind = Kind::kInt32;
    arg.int_value = value;
    return arg;
  }
  static KernelArg Float(float value) {
    KernelArg arg{Buffer()};
    arg.kind = Kind::kFloat;
    arg.float_value = value;
    return arg;
  }

  Kind kind = Kind::kBuffer;
  Buffer buffer;
  int32_t int_value = 0;
  float float_value = 0;
};

}  // namespace beast::harness
