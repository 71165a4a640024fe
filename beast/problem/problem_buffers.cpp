// Sizing a problem's buffers and checking they fit (problem_buffers.hpp).
#include "beast/problem/problem_buffers.hpp"

#include <unistd.h>

#include <cstdio>

#include "beast/core/error.hpp"

namespace beast {
namespace {

// The product of `factors` times the element size; throws naming `buffer`
// and the problem when it does not fit in 63 bits.
ProblemBuffer Sized(const Problem& problem, const std::string& buffer,
                    std::initializer_list<int64_t> factors) {
  int64_t bytes = DTypeBytes(problem.dtype());
  for (int64_t f : factors) {
    if (__builtin_mul_overflow(bytes, f, &bytes))
      throw Error(ErrorCode::kBadArgument, "problem " + problem.Key() + ": buffer " + buffer +
                                               " needs more than 2^63 bytes");
  }
  return {buffer, bytes};
}

int64_t Sum(const Problem& problem, const std::vector<ProblemBuffer>& buffers,
            const std::string& what) {
  int64_t total = 0;
  for (const ProblemBuffer& b : buffers) {
    if (__builtin_add_overflow(total, b.bytes, &total))
      throw Error(ErrorCode::kBadArgument,
                  "problem " + problem.Key() + ": " + what + " need more than 2^63 bytes");
  }
  return total;
}

}  // namespace

std::vector<ProblemBuffer> ProblemBuffers(const Problem& problem) {
  std::vector<ProblemBuffer> out;
  if (problem.op() == OpKind::kGemm) {
    const GemmShape& g = problem.gemm();
    out.push_back(Sized(problem, "A", {g.m, g.k}));
    out.push_back(Sized(problem, "B", {g.k, g.n}));
    out.push_back(Sized(problem, "C", {g.m, g.n}));
    return out;
  }
  const Conv2dShape& c = problem.conv();
  out.push_back(Sized(problem, "x (input)", {c.n, c.c, c.h, c.w}));
  out.push_back(Sized(problem, "w (filter)", {c.k, c.c / c.groups, c.r, c.s}));
  if (c.bias) out.push_back(Sized(problem, "b (bias)", {c.k}));
  out.push_back(Sized(problem, "y (output)", {c.n, c.k, c.OutH(), c.OutW()}));
  return out;
}

int64_t ReferenceBytesMoved(const Problem& problem) {
  return Sum(problem, ProblemBuffers(problem), "the buffers");
}

int64_t ReferenceHostBytes(const Problem& problem) {
  std::vector<ProblemBuffer> buffers = ProblemBuffers(problem);
  // The output is held twice more on the host: the reference and the
  // absolute-value sums that scale its error bound.
  buffers.push_back(buffers.back());
  return Sum(problem, buffers, "the CPU reference's buffers");
}

void CheckProblemFits(const Problem& problem, const DeviceInfo& device, int64_t host_memory_bytes) {
  if (problem.dtype() == DType::kF64 && !device.limits.fp64)
    throw Error(ErrorCode::kBadArgument, "problem " + problem.Key() +
                                             ": dtype f64 needs double precision, which " +
                                             device.Id() + " does not have (no cl_khr_fp64)");
  const std::vector<ProblemBuffer> buffers = ProblemBuffers(problem);
  const DeviceLimits& l = device.limits;
  for (const ProblemBuffer& b : buffers) {
    if (l.max_alloc_bytes > 0 && b.bytes > l.max_alloc_bytes)
      throw Error(ErrorCode::kBadArgument,
                  "problem " + problem.Key() + ": buffer " + b.name + " needs " +
                      ReadableBytes(b.bytes) + ", more than the largest allocation " + device.Id() +
                      " allows (" + ReadableBytes(l.max_alloc_bytes) + ")");
  }
  const int64_t total = Sum(problem, buffers, "the buffers");
  if (l.global_mem_bytes > 0 && total > l.global_mem_bytes)
    throw Error(ErrorCode::kBadArgument, "problem " + problem.Key() + ": its buffers need " +
                                             ReadableBytes(total) + ", more than " + device.Id() +
                                             "'s global memory (" +
                                             ReadableBytes(l.global_mem_bytes) + ")");
  const int64_t host = ReferenceHostBytes(problem);
  if (host_memory_bytes > 0 && host > host_memory_bytes)
    throw Error(ErrorCode::kBadArgument, "problem " + problem.Key() + ": its CPU reference needs " +
                                             ReadableBytes(host) +
                                             " of host memory, more than this machine has (" +
                                             ReadableBytes(host_memory_bytes) + ")");
}

int64_t HostMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<int64_t>(pages), static_cast<int64_t>(page_size), &bytes))
    return 0;
  return bytes;
}

std::string ReadableBytes(int64_t bytes) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 6) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

}  // namespace beast
