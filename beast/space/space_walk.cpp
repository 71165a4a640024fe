// Listing valid configs (ForEach, Enumerate): a depth-first walk over the
// plan's walk order that binds one parameter per step, with the checks of
// the plan; where independent groups start, their counts are looked up first
// so no group is walked for nothing. Enumerate on several threads shares out
// the partial configs of the first parameters and joins the lists in order.
#include <algorithm>
#include <mutex>

#include "beast/space/bound_space.hpp"
#include "beast/space/bound_space_impl.hpp"
#include "beast/space/space_counter.hpp"

namespace beast {
namespace {

using space::Counter;
using space::MemoPolicy;
using space::Plan;
using space::PlanNode;

class Lister {
 public:
  Lister(const BoundSpace::Impl& m, const Plan& plan)
      : plan_(plan), counter_(m, plan, MemoPolicy::kRecurring, nullptr) {}

  // The slots before the walk; false when the space is empty.
  bool Start(std::vector<Value>* slots) {
    if (!counter_.Prepare(slots)) return false;
    if (plan_.roots.size() > 1) {
      for (int root : plan_.roots) {
        if (counter_.Count(root, slots->data()) == 0) return false;
      }
    }
    return true;
  }

  // Binds v at walk position i; false when the partial config leads nowhere.
  bool Step(size_t i, const Value& v, Value* slots) {
    int n = plan_.linear[i];
    if (!counter_.Bind(n, v, slots)) return false;
    return plan_.nodes[n].children.size() <= 1 || counter_.Children(n, slots) > 0;
  }

  // Copies of node i's values (the walk below re-evaluates other nodes only,
  // but callers that keep them across calls need their own).
  std::vector<Value> ValuesAt(size_t i, const Value* slots) {
    return counter_.Values(plan_.linear[i], slots);
  }

  // Walks positions i.. in order; visit(slots) returns false to stop.
  template <class Visit>
  bool Walk(size_t i, Value* slots, Visit& visit) {
    if (i == plan_.linear.size()) return visit(slots);
    const std::vector<Value>& values = counter_.Values(plan_.linear[i], slots);
    for (const Value& v : values) {
      if (Step(i, v, slots) && !Walk(i + 1, slots, visit)) return false;
    }
    return true;
  }

 private:
  const Plan& plan_;
  Counter counter_;
};

}  // namespace

void BoundSpace::ForEach(const std::function<bool(const Config&)>& visit) const {
  const Impl& m = *impl_;
  Lister lister(m, *m.plan);
  std::vector<Value> slots;
  if (!lister.Start(&slots)) return;
  auto adapter = [&](const Value* s) { return visit(m.MakeConfig(s)); };
  lister.Walk(0, slots.data(), adapter);
}

std::vector<Config> BoundSpace::Enumerate(size_t limit) const {
  return Enumerate(limit, impl_->options.threads);
}

std::vector<Config> BoundSpace::Enumerate(size_t limit, unsigned threads) const {
  const Impl& m = *impl_;
  threads = m.Threads(threads, m.plan->cost);
  std::vector<Config> out;
  if (limit == 0) return out;
  if (threads <= 1) {
    ForEach([&](const Config& c) {
      out.push_back(c);
      return out.size() < limit;
    });
    return out;
  }
  // Partial configs of the first walk positions, in walk order, until there
  // are enough to share out.
  const Plan& plan = *m.plan;
  Lister main(m, plan);
  std::vector<std::vector<Value>> items(1);
  if (!main.Start(&items[0])) return out;
  size_t depth = 0;
  while (depth < plan.linear.size() && items.size() < 8 * static_cast<size_t>(threads)) {
    std::vector<std::vector<Value>> next;
    for (auto& slots : items) {
      for (const Value& v : main.ValuesAt(depth, slots.data())) {
        if (main.Step(depth, v, slots.data())) next.push_back(slots);
      }
    }
    items.swap(next);
    ++depth;
  }
  // Each item lists at most `limit`; items past the first prefix that holds
  // `limit` configs are skipped.
  std::vector<std::vector<Config>> lists(items.size());
  std::vector<char> finished(items.size(), 0);
  std::mutex mutex;
  size_t stop_after = items.size();
  std::vector<std::unique_ptr<Lister>> listers(threads);
  for (auto& l : listers) l = std::make_unique<Lister>(m, plan);
  space::RunParallel(items.size(), threads, [&](size_t i, unsigned t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (i > stop_after) return;
    }
    std::vector<Config>& list = lists[i];
    auto collect = [&](const Value* s) {
      list.push_back(m.MakeConfig(s));
      return list.size() < limit;
    };
    listers[t]->Walk(depth, items[i].data(), collect);
    std::lock_guard<std::mutex> lock(mutex);
    finished[i] = 1;
    size_t total = 0;
    for (size_t j = 0; j < items.size() && finished[j]; ++j) {
      total += lists[j].size();
      if (total >= limit) {
        stop_after = std::min(stop_after, j);
        break;
      }
    }
  });
  for (auto& list : lists) {
    for (auto& c : list) {
      if (out.size() == limit) return out;
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace beast
