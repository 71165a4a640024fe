// The search strategies on small synthetic spaces whose optimum is known: a
// quadratic bowl, and the same bowl where nearly half the configs fail. Each
// strategy proposes only points of the space, never one twice; it finds the
// optimum; a failed config never counts as the best; the model steers away
// from what fails; and a strategy is a function of its seed and the outcomes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "beast/core/error.hpp"
#include "beast/search/listed_search_space.hpp"
#include "beast/search/search_driver.hpp"
#include "beast/search/strategy.hpp"

namespace beast {
namespace {

// x, y in 0..15 and a mode in {0, 1}: 512 configs, the optimum at x=11, y=5,
// mode=1.
ListedSearchSpace Bowl() {
  std::vector<Config> configs;
  const std::vector<std::string> names = {"x", "y", "mode"};
  for (int64_t x = 0; x < 16; ++x)
    for (int64_t y = 0; y < 16; ++y)
      for (int64_t m = 0; m < 2; ++m)
        configs.emplace_back(names,
                             std::vector<Value>{Value::Int(x), Value::Int(y), Value::Int(m)});
  return ListedSearchSpace(names, configs);
}

int64_t Param(const Config& c, const std::string& name) { return c.Find(name)->i; }

// The bowl's time; with `half_fail`, configs with x < y fail (as a tile
// wider than its block would): 240 of 512.
Trial Measure(const Config& c, bool half_fail) {
  Trial t;
  t.config = c;
  const int64_t x = Param(c, "x"), y = Param(c, "y"), m = Param(c, "mode");
  if (half_fail && x < y) {
    t.status = Status::kRuntimeError;
    return t;
  }
  t.ms = 1.0 + (x - 11) * (x - 11) + (y - 5) * (y - 5) + (m == 1 ? 0.0 : 0.5);
  return t;
}

// One trajectory to `budget`: the configs in order.
History Trajectory(const std::string& strategy, uint64_t seed, size_t budget, bool half_fail) {
  const ListedSearchSpace space = Bowl();
  std::unique_ptr<Strategy> s = MakeStrategy(strategy, seed);
  SearchDriver::Options options;
  options.budget = budget;
  SearchDriver driver(*s, space, options);
  while (std::optional<Config> next = driver.Next()) driver.Record(Measure(*next, half_fail));
  return driver.history();
}

const Trial* Best(const History& h) {
  const Trial* best = nullptr;
  for (const Trial& t : h) {
    if (t.Succeeded() && (!best || *t.ms < *best->ms)) best = &t;
  }
  return best;
}

constexpr const char* kOptimum = "x=11,y=5,mode=1";

TEST(Strategies, ProposeDistinctPointsOfTheSpaceUpToTheBudget) {
  const ListedSearchSpace space = Bowl();
  for (const std::string name : {"model", "random", "exhaustive"}) {
    for (size_t budget : {1u, 7u, 60u}) {
      const History h = Trajectory(name, 3, budget, false);
      EXPECT_EQ(h.size(), budget) << name;
      std::set<std::string> keys;
      for (const Trial& t : h) {
        EXPECT_TRUE(space.IndexOf(t.config).has_value()) << name << " " << t.config.Key();
        EXPECT_TRUE(keys.insert(t.config.Key()).second) << name << " twice: " << t.config.Key();
      }
    }
  }
}

TEST(Strategies, EveryStrategyMeasuresTheWholeSpaceWhenTheBudgetIsIt) {
  for (const std::string name : {"model", "random", "exhaustive"}) {
    const History h = Trajectory(name, 1, 512, false);
    EXPECT_EQ(h.size(), 512u) << name;
    ASSERT_NE(Best(h), nullptr);
    EXPECT_EQ(Best(h)->config.Key(), kOptimum) << name;
  }
  // Exhaustive walks the space in its order.
  const History h = Trajectory("exhaustive", 1, 3, false);
  EXPECT_EQ(h[0].config.Key(), "x=0,y=0,mode=0");
  EXPECT_EQ(h[2].config.Key(), "x=0,y=1,mode=0");
}

TEST(Strategies, TheModelFindsTheBowlsOptimumInAFractionOfTheSpace) {
  // 60 of 512 configs, every seed tried: the model's picks near the best
  // measured walk down the bowl.
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const History h = Trajectory("model", seed, 60, false);
    ASSERT_NE(Best(h), nullptr);
    EXPECT_EQ(Best(h)->config.Key(), kOptimum) << "seed " << seed;
  }
}

TEST(Strategies, FailuresAreLearnedFromAndNeverTheBest) {
  size_t model_failures = 0, random_failures = 0;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const History model = Trajectory("model", seed, 60, true);
    const History random = Trajectory("random", seed, 60, true);
    for (const History* h : {&model, &random}) {
      const Trial* best = Best(*h);
      ASSERT_NE(best, nullptr);
      EXPECT_EQ(best->status, Status::kOk);
    }
    // x=11 >= y=5: the optimum is a config that works.
    EXPECT_EQ(Best(model)->config.Key(), kOptimum) << "seed " << seed;
    // After its initial design (16), the model proposes less than a quarter
    // of the failing configs that random draws (nearly half of its draws).
    for (size_t i = 16; i < model.size(); ++i) model_failures += !model[i].Succeeded();
    for (size_t i = 16; i < random.size(); ++i) random_failures += !random[i].Succeeded();
  }
  EXPECT_LT(model_failures * 4, random_failures) << model_failures << " vs " << random_failures;
}

TEST(Strategies, AStrategyIsAFunctionOfItsSeedAndTheOutcomes) {
  for (const std::string name : {"model", "random"}) {
    const History a = Trajectory(name, 7, 40, true);
    const History b = Trajectory(name, 7, 40, true);
    const History c = Trajectory(name, 8, 40, true);
    std::vector<std::string> ka, kb, kc;
    for (const Trial& t : a) ka.push_back(t.config.Key());
    for (const Trial& t : b) kb.push_back(t.config.Key());
    for (const Trial& t : c) kc.push_back(t.config.Key());
    EXPECT_EQ(ka, kb) << name;
    EXPECT_NE(ka, kc) << name;
  }
}

TEST(Strategies, ATrajectoryIsAPrefixOfThatOfALargerBudget) {
  // So a rerun with a larger --max-configs extends an earlier run.
  for (const std::string name : {"model", "random", "exhaustive"}) {
    const History short_run = Trajectory(name, 2, 29, false);
    const History long_run = Trajectory(name, 2, 60, false);
    for (size_t i = 0; i < short_run.size(); ++i)
      EXPECT_EQ(short_run[i].config.Key(), long_run[i].config.Key()) << name << " at " << i;
  }
}

TEST(Strategies, TheFirstConfigComesFirstAndPatienceEndsTheSearch) {
  const ListedSearchSpace space = Bowl();
  std::unique_ptr<Strategy> s = MakeStrategy("random", 0);
  SearchDriver::Options options;
  options.first = space.At(100);
  options.patience = 5;
  SearchDriver driver(*s, space, options);
  std::optional<Config> first = driver.Next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->Key(), space.At(100).Key());
  EXPECT_FALSE(driver.Proposed(*first));
  // Every config after the first as slow as can be: 5 without a gain end it.
  Trial t = Measure(*first, false);
  driver.Record(t);
  size_t after = 0;
  while (std::optional<Config> next = driver.Next()) {
    Trial slow;
    slow.config = *next;
    slow.ms = 1e9;
    driver.Record(slow);
    ++after;
  }
  EXPECT_EQ(after, 5u);
}

// Where the optimum first appears in a model trajectory (its 0-based
// position), with or without a transfer set.
size_t OptimumPosition(uint64_t seed, const TransferSet* transfer) {
  const ListedSearchSpace space = Bowl();
  std::unique_ptr<Strategy> s = MakeStrategy("model", seed);
  SearchDriver::Options options;
  options.budget = 512;
  SearchDriver driver(*s, space, options, transfer);
  while (std::optional<Config> next = driver.Next()) {
    if (next->Key() == kOptimum) return driver.position();
    driver.Record(Measure(*next, false));
  }
  return 512;
}

TEST(Strategies, TransferFromAnotherProblemFindsTheOptimumSooner) {
  // Another problem of the same template: the same bowl three times slower
  // (the model learns times relative to each problem's own), measured at 40
  // random configs and the optimum.
  TransferSet transfer;
  History other;
  for (const Trial& t : Trajectory("random", 99, 40, false)) other.push_back(t);
  const ListedSearchSpace space = Bowl();
  other.push_back(Measure(space.At(*space.IndexOf(Config::ParseKey(kOptimum))), false));
  for (Trial& t : other) t.ms = *t.ms * 3;
  transfer.groups.push_back(other);
  size_t with = 0, without = 0;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const size_t warm = OptimumPosition(seed, &transfer);
    EXPECT_LT(warm, 8u) << "seed " << seed << ": not in the first batch";
    with += warm;
    without += OptimumPosition(seed, nullptr);
  }
  EXPECT_LT(with * 4, without) << with << " vs " << without;
}

TEST(Strategies, TransferStandsInForTheInitialDesignOnly) {
  // The transfer set: the bowl measured elsewhere, optimum included. Once 16
  // of the problem's own trials (the initial design's size) ran ok, the model
  // proposes what it proposes without a transfer set; with 15, not.
  const ListedSearchSpace space = Bowl();
  TransferSet transfer;
  transfer.groups.push_back(Trajectory("random", 99, 40, false));
  transfer.groups[0].push_back(
      Measure(space.At(*space.IndexOf(Config::ParseKey(kOptimum))), false));
  auto keys = [&](const History& own, const TransferSet* given) {
    const std::vector<Config> pending;
    std::vector<std::string> out;
    for (const Config& c : MakeStrategy("model", 7)->Propose({space, own, pending, 8, given}))
      out.push_back(c.Key());
    return out;
  };
  History own = Trajectory("random", 3, 16, false);
  ASSERT_EQ(own.size(), 16u);
  EXPECT_EQ(keys(own, &transfer), keys(own, nullptr));
  own.pop_back();
  EXPECT_NE(keys(own, &transfer), keys(own, nullptr));
}

TEST(Strategies, ATransferSetOfFailuresOnlyTeachesNothing) {
  // Another problem where every config failed (or was only compiled): the
  // model starts from its initial design, as without a transfer set.
  const ListedSearchSpace space = Bowl();
  TransferSet failed;
  failed.groups.push_back(Trajectory("random", 99, 40, false));
  for (Trial& t : failed.groups[0]) {
    t.status = Status::kRuntimeError;
    t.ms.reset();
  }
  const History own;
  const std::vector<Config> pending;
  auto keys = [&](const TransferSet* given) {
    std::vector<std::string> out;
    for (const Config& c : MakeStrategy("model", 7)->Propose({space, own, pending, 8, given}))
      out.push_back(c.Key());
    return out;
  };
  EXPECT_EQ(keys(&failed), keys(nullptr));
}

TEST(Strategies, TheLeadKeepsThatManyProposedConfigsAheadOfTheDevice) {
  // A GPU's compile pool builds what is proposed ahead: with lead L the
  // driver proposes the model's next batch of 8 when only L proposed configs
  // would be left, so L to L + 7 are always waiting beyond the one measured.
  const ListedSearchSpace space = Bowl();
  for (size_t lead : {size_t{2}, size_t{16}}) {
    std::unique_ptr<Strategy> s = MakeStrategy("model", 3);
    SearchDriver::Options options;
    options.budget = 200;
    options.lead = lead;
    SearchDriver driver(*s, space, options);
    size_t measured = 0, least = SIZE_MAX, most = 0;
    while (std::optional<Config> next = driver.Next()) {
      if (measured + 1 + lead + 8 <= options.budget) {  // the budget cuts the last batches
        least = std::min(least, driver.Ahead(1000).size());
        most = std::max(most, driver.Ahead(1000).size());
      }
      driver.Record(Measure(*next, false));
      ++measured;
    }
    EXPECT_EQ(measured, 200u);
    EXPECT_EQ(least, lead);
    EXPECT_EQ(most, lead + 7);
  }
}

TEST(Strategies, AnUnknownNameIsRefusedNamingTheKnownOnes) {
  try {
    MakeStrategy("anneal", 0);
    FAIL() << "made an unknown strategy";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadArgument);
    EXPECT_EQ(std::string(e.what()),
              "unknown strategy \"anneal\" (known: model, random, exhaustive)");
  }
}

}  // namespace
}  // namespace beast
