// ParallelRows: runs fn(begin, end) over [0, count) split into contiguous
// chunks, one per hardware thread, and waits for them. The CPU references
// use it: a 4096^3 SGEMM's double-precision reference took over 90 s on one
// core of a 16-core GPU machine, longer than the tuning it checks. Each
// output is still computed by one thread in one order, so the reference is
// the same bit for bit whatever the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace beast::harness {

// `min_chunk` keeps small problems on the calling thread (a thread start
// costs more than their whole reference). What fn throws on any thread is
// rethrown here after every thread has ended; a thread that cannot be
// started leaves its chunk to the calling thread.
template <typename Fn>
void ParallelRows(int64_t count, int64_t min_chunk, const Fn& fn) {
  const int64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const int64_t threads = std::clamp<int64_t>(count / std::max<int64_t>(1, min_chunk), 1, hardware);
  if (threads == 1) {
    fn(int64_t{0}, count);
    return;
  }
  const int64_t chunk = (count + threads - 1) / threads;
  std::mutex mutex;
  std::exception_ptr first_error;
  auto run = [&](int64_t begin, int64_t end) {
    try {
      fn(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::vector<std::pair<int64_t, int64_t>> left_to_caller = {{0, std::min(count, chunk)}};
  pool.reserve(threads);  // nothing below allocates once a thread runs
  left_to_caller.reserve(threads);
  for (int64_t t = 1; t < threads; ++t) {
    const int64_t begin = std::min(count, t * chunk), end = std::min(count, begin + chunk);
    if (begin >= end) continue;
    try {
      pool.emplace_back(run, begin, end);
    } catch (const std::system_error&) {
      left_to_caller.emplace_back(begin, end);
    }
  }
  for (const auto& [begin, end] : left_to_caller) run(begin, end);
  for (std::thread& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace beast::harness
