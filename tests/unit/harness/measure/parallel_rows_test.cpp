// ParallelRows: every row is done once whatever the split, small counts stay
// on the calling thread, and an exception from any chunk reaches the caller
// after every thread has ended.
#include "harness/measure/parallel_rows.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace beast::harness {
namespace {

TEST(ParallelRows, EveryRowOnceForAnyCountAndChunk) {
  for (int64_t count : {0, 1, 7, 64, 1001}) {
    for (int64_t min_chunk : {1, 3, 100}) {
      std::vector<std::atomic<int>> done(static_cast<size_t>(count));
      ParallelRows(count, min_chunk, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) done[static_cast<size_t>(i)]++;
      });
      int64_t wrong = 0;
      for (const auto& d : done) wrong += d.load() != 1;
      EXPECT_EQ(wrong, 0) << count << " rows, chunks of at least " << min_chunk;
    }
  }
}

TEST(ParallelRows, FewerRowsThanTheMinimumChunkStayOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> ran_on;
  ParallelRows(5, 8, [&](int64_t begin, int64_t end) {
    ran_on.push_back(std::this_thread::get_id());
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 5);
  });
  ASSERT_EQ(ran_on.size(), 1u);
  EXPECT_EQ(ran_on[0], caller);
}

TEST(ParallelRows, AnExceptionOfAnyChunkReachesTheCallerAfterAllEnded) {
  // The last chunk throws; on one hardware thread that is the caller's only
  // chunk, elsewhere another thread's.
  std::atomic<int64_t> rows_done{0};
  EXPECT_THROW(ParallelRows(1000, 1,
                            [&](int64_t begin, int64_t end) {
                              if (end == 1000) throw std::runtime_error("chunk failed");
                              rows_done += end - begin;
                            }),
               std::runtime_error);
  // Every other chunk ran to its end before ParallelRows returned.
  const int64_t threads =
      std::min<int64_t>(1000, std::max(1u, std::thread::hardware_concurrency()));
  const int64_t chunk = (1000 + threads - 1) / threads;
  EXPECT_EQ(rows_done.load(), threads == 1 ? 0 : 1000 - (1000 - (threads - 1) * chunk));
}

}  // namespace
}  // namespace beast::harness
