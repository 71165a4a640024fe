// The worker's problem shelf (beast/worker/problem_shelf.hpp) and seal
// (problem_seal.hpp): the shelf keeps the most recently used problems within
// its count and size, lets the oldest go before making a new one (by count)
// or after it (by size), keeps nothing of a make that throws; the seal tells
// which input a kernel wrote into, and whether the host's copy changed when
// it is checked.
#include "beast/worker/problem_shelf.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "beast/worker/problem_seal.hpp"

namespace beast {
namespace {

struct Entry {
  std::string key;
  int* alive;
  Entry(std::string k, int* a) : key(std::move(k)), alive(a) { ++*alive; }
  ~Entry() { --*alive; }
};

TEST(ProblemShelf, KeepsTheMostRecentlyUsedAndLetsTheOldestGoFirst) {
  int alive = 0, made = 0;
  ProblemShelf<Entry> shelf(2);
  auto get = [&](const std::string& key) -> Entry& {
    return shelf.Get(key, [&] {
      ++made;
      // The oldest is gone before a new one is made, beyond the capacity.
      EXPECT_LE(alive, 1) << key;
      return std::make_unique<Entry>(key, &alive);
    });
  };
  EXPECT_EQ(get("a").key, "a");
  EXPECT_EQ(get("b").key, "b");
  EXPECT_EQ(get("a").key, "a");  // kept: now the most recent
  EXPECT_EQ(made, 2);
  EXPECT_EQ(get("c").key, "c");  // lets b go
  EXPECT_EQ(alive, 2);
  EXPECT_EQ(get("a").key, "a");
  EXPECT_EQ(made, 3);
  EXPECT_EQ(get("b").key, "b");  // made again
  EXPECT_EQ(made, 4);
  shelf.Drop("b");
  EXPECT_EQ(shelf.size(), 1u);
  EXPECT_EQ(alive, 1);
}

TEST(ProblemShelf, KeepsWhatFitsItsSizeAndAlwaysTheNewest) {
  int alive = 0;
  // Each entry's size: the length of its key.
  ProblemShelf<Entry> shelf(SIZE_MAX, 6, [](const Entry& e) { return e.key.size(); });
  auto get = [&](const std::string& key) -> Entry& {
    return shelf.Get(key, [&] { return std::make_unique<Entry>(key, &alive); });
  };
  get("aa");
  get("bbb");
  EXPECT_EQ(shelf.bytes(), 5u);
  get("aa");    // the most recent now
  get("cccc");  // 9 bytes: bbb goes (the oldest), then 6 fit
  EXPECT_EQ(shelf.size(), 2u);
  EXPECT_EQ(shelf.bytes(), 6u);
  get("ddddddddd");  // larger than the size alone: kept, the others go
  EXPECT_EQ(shelf.size(), 1u);
  EXPECT_EQ(alive, 1);
  shelf.Clear();
  EXPECT_EQ(shelf.bytes(), 0u);
  EXPECT_EQ(alive, 0);
}

TEST(ProblemShelf, AMakeThatThrowsKeepsNothing) {
  int alive = 0;
  ProblemShelf<Entry> shelf(2);
  shelf.Get("a", [&] { return std::make_unique<Entry>("a", &alive); });
  EXPECT_THROW(shelf.Get("b", [&]() -> std::unique_ptr<Entry> { throw std::runtime_error("x"); }),
               std::runtime_error);
  EXPECT_EQ(shelf.size(), 1u);
  int made = 0;
  shelf.Get("b", [&] {
    ++made;
    return std::make_unique<Entry>("b", &alive);
  });
  EXPECT_EQ(made, 1);
}

ProblemData SmallConv() {
  ProblemData d;
  d.problem_key = "conv2d:N=1,C=1,H=2,W=2,K=1,R=1,S=1";
  d.input0 = {1, 2, 3, 4};
  d.input1 = {0.5f};
  d.bias = {0.25f};
  d.reference = {0.75f, 1.25f, 1.75f, 2.25f};
  d.abs_reference = d.reference;
  d.output_count = 4;
  return d;
}

// Reads "device" input i from copies of the inputs as uploaded.
struct FakeDevice {
  std::vector<std::vector<float>> inputs;
  void Read(size_t i, void* host, size_t bytes) const {
    ASSERT_EQ(bytes, inputs[i].size() * sizeof(float));
    std::memcpy(host, inputs[i].data(), bytes);
  }
};

TEST(ProblemSeal, NamesTheInputAKernelWroteInto) {
  const ProblemData d = SmallConv();
  const ProblemSeal seal = SealOf(d, /*check_host=*/false);
  ASSERT_EQ(seal.input.size(), 3u);
  EXPECT_EQ(seal.host, 0u);
  FakeDevice device{{d.input0, d.input1, d.bias}};
  auto read = [&](size_t i, void* host, size_t bytes) { device.Read(i, host, bytes); };
  EXPECT_EQ(BrokenSeal(d, seal, read), "");
  device.inputs[1][0] = 0.75f;
  device.inputs[2][0] = -1;
  EXPECT_EQ(BrokenSeal(d, seal, read), "it wrote into its input w, into its input bias");
}

TEST(ProblemSeal, TheHostsCopyIsCheckedWhenAskedFor) {
  ProblemData d = SmallConv();
  const ProblemSeal seal = SealOf(d, /*check_host=*/true);
  EXPECT_NE(seal.host, 0u);
  FakeDevice device{{d.input0, d.input1, d.bias}};
  auto read = [&](size_t i, void* host, size_t bytes) { device.Read(i, host, bytes); };
  d.abs_reference[3] = 0;  // as a kernel writing past its buffers in the worker's memory would
  EXPECT_EQ(
      BrokenSeal(d, seal, read),
      "it wrote past its buffers into the worker's copy of the problem's inputs or reference");
  int dropped = 0;
  EXPECT_EQ(
      CheckSeal(d, seal, read, [&] { ++dropped; }),
      "it wrote past its buffers into the worker's copy of the problem's inputs or reference");
  EXPECT_EQ(dropped, 1);
  // A device that cannot be read back: let go, the failure is not named here.
  EXPECT_EQ(CheckSeal(
                d, seal, [](size_t, void*, size_t) { throw std::runtime_error("lost"); },
                [&] { ++dropped; }),
            "");
  EXPECT_EQ(dropped, 2);
}

TEST(ProblemSeal, HashBytesSeesEveryByte) {
  std::vector<unsigned char> bytes(37, 7);
  const uint64_t h = HashBytes(bytes.data(), bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] ^= 1;
    EXPECT_NE(HashBytes(bytes.data(), bytes.size()), h) << i;
    bytes[i] ^= 1;
  }
  EXPECT_EQ(HashBytes(bytes.data(), bytes.size()), h);
  EXPECT_NE(HashBytes(bytes.data(), 36), h);
}

}  // namespace
}  // namespace beast
