// ParallelRows: runs fn(begin, end) over [0, count) split into contiguous
// chunks, one per hardware thread, and waits for them. The CPU references
// use it: a 4096^3 SGEMM's double-precision reference took over 90 s on one
// core of a 16-core GPU machine, longer than the tuning it checks. Each
// output is still computed by one thread in one order, so the reference is
// the same bit for bit whatever the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace beast::harness {

// `min_chunk` keeps small problems on the calling thread (a thread start
// costs more than their whole reference).
template <typename Fn>
void ParallelRows(int64_t count, int64_t min_chunk, const Fn& fn) {
  const int64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const int64_t threads = std::clamp<int64_t>(count / std::max<int64_t>(1, min_chunk), 1, hardware);
  if (threads == 1) {
    fn(int64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  const int64_t chunk = (count + threads - 1) / threads;
  for (int64_t t = 1; t < threads; ++t) {
    const int64_t begin = std::min(count, t * chunk), end = std::min(count, begin + chunk);
    if (begin < end) pool.emplace_back([&fn, begin, end] { fn(begin, end); });
  }
  fn(int64_t{0}, std::min(count, chunk));
  for (std::thread& t : pool) t.join();
}

}  // namespace beast::harness
