// Counter: counts the valid points under a walk plan node without visiting
// them one by one. Independent groups multiply, subtrees whose context
// recurs are remembered (MemoTable), subtrees that need no evaluation are
// constants of the plan. Also binds single values for the walks that list
// (ForEach) and index (At, IndexOf) configs, so all agree on what is valid.
// One Counter per thread; CountPlan splits the outer parameters among threads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "beast/space/space_memo.hpp"
#include "beast/space/space_plan.hpp"

namespace beast::space {

// What the checks rejected (Explain). Counts are those of a walk that
// visits every partial config of the plan's tree once: remembered subtrees
// carry their statistics, so neither memo hits nor threads change them.
struct WalkStats {
  std::vector<uint64_t> removed;  // per constraint
  std::vector<uint64_t> invalid;  // per constraint: of removed, by a failed evaluation
  uint64_t derived_errors = 0;

  explicit WalkStats(size_t constraints) : removed(constraints, 0), invalid(constraints, 0) {}
  void Add(const WalkStats& other);
};

enum class MemoPolicy {
  kRecurring,  // the nodes whose context recurs within one count (plan's memo)
  kAll,        // every node that needs evaluation: counts kept across At/IndexOf calls
};

class Counter {
 public:
  Counter(const BoundSpace::Impl& m, const Plan& plan, MemoPolicy policy, WalkStats* stats);
  ~Counter();

  // The slots before any parameter is bound: problem/device values and the
  // derived values that need no parameter. False when a problem/device-only
  // check fails or such a derived value cannot be computed: the space is empty.
  bool Prepare(std::vector<Value>* slots);
  // Points of node n's subtree with the slots above it bound.
  uint64_t Count(int n, Value* slots);
  // Node n's values under the bound slots; valid until n's values are asked again.
  const std::vector<Value>& Values(int n, const Value* slots);
  // Binds v at node n, computes its derived values and runs its checks.
  bool Bind(int n, const Value& v, Value* slots);
  // The product of the counts of n's children (n bound), 0 when one is empty.
  uint64_t Children(int n, Value* slots);

  const Plan& plan() const { return plan_; }

 private:
  template <bool kStats>
  uint64_t CountT(int n, Value* slots);
  template <bool kStats>
  bool BindT(const PlanNode& node, const Value& v, Value* slots);
  template <bool kStats>
  uint64_t ChildrenT(const PlanNode& node, Value* slots);
  const std::vector<Value>& ValuesOf(int n, const PlanNode& node, const Value* slots);

  const BoundSpace::Impl& m_;
  const Plan& plan_;
  WalkStats* stats_;
  std::vector<std::vector<Value>> scratch_;         // per node: its evaluated value set
  std::vector<std::unique_ptr<MemoTable>> tables_;  // per node, or null
  std::vector<std::vector<uint64_t>> keys_;         // per node: its key buffer
  std::vector<uint64_t> marks_;                     // stats snapshots of open subtrees
};

// The number of points of the whole plan, counted with `threads` threads
// (the outer parameters' values are shared out); stats, when given, are the
// same whatever the number of threads.
uint64_t CountPlan(const BoundSpace::Impl& m, const Plan& plan, unsigned threads, WalkStats* stats);

// Runs work(item, thread) for item in [0, items) on `threads` threads (the
// calling one included), items handed out in order; rethrows the first
// exception a thread raised.
void RunParallel(size_t items, unsigned threads, const std::function<void(size_t, unsigned)>& work);

}  // namespace beast::space
