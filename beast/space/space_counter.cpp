// Counting under a walk plan (space_counter.hpp): the recursive count with
// memo tables and carried statistics, and its split among threads.
#include "beast/space/space_counter.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace beast::space {
namespace {

using Impl = BoundSpace::Impl;

// Per-node entry limits: a per-count table holds what recurs in one count;
// the kept table of At/IndexOf shares a budget among the nodes.
constexpr size_t kRecurringEntries = size_t{1} << 20;
constexpr size_t kKeptEntries = size_t{1} << 17;

[[noreturn]] void Overflow() {
  throw Error(ErrorCode::kBadInput,
              "the space has more than 2^64 points, more than beast can count");
}

inline uint64_t Add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) Overflow();
  return r;
}

}  // namespace

void WalkStats::Add(const WalkStats& other) {
  for (size_t c = 0; c < removed.size(); ++c) {
    removed[c] += other.removed[c];
    invalid[c] += other.invalid[c];
  }
  derived_errors += other.derived_errors;
}

Counter::Counter(const Impl& m, const Plan& plan, MemoPolicy policy, WalkStats* stats)
    : m_(m), plan_(plan), stats_(stats) {
  size_t n = plan.nodes.size();
  scratch_.resize(n);
  tables_.resize(n);
  keys_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const PlanNode& node = plan.nodes[i];
    bool memo = policy == MemoPolicy::kAll
                    ? node.constant < 0 && node.context.size() <= 32 && !node.children.empty()
                    : node.memo;
    if (!memo) continue;
    int key_words = static_cast<int>(node.context.size()) + 1;
    int value_words = 1 + (stats ? 2 * static_cast<int>(node.subtree_checks.size()) + 1 : 0);
    size_t entries =
        policy == MemoPolicy::kAll ? std::max<size_t>(1024, kKeptEntries / n) : kRecurringEntries;
    tables_[i] = std::make_unique<MemoTable>(key_words, value_words, entries);
    keys_[i].resize(key_words);
  }
}

Counter::~Counter() = default;

bool Counter::Prepare(std::vector<Value>* slots) {
  *slots = m_.base_slots;
  Value* s = slots->data();
  // The derived values that read no parameter first: a check on the
  // problem and device may read them (winograd_split's STAGE_WG).
  for (const auto& d : m_.derived) {
    if (!d.params.empty()) continue;
    if (d.expr.Eval(s, &s[d.slot]) != EvalStatus::kOk && !plan_.raw) {
      if (stats_) ++stats_->derived_errors;
      return false;
    }
  }
  for (int c : plan_.fixed_checks) {
    Value r;
    EvalStatus status = m_.compiled[c].Eval(s, &r);
    if (status != EvalStatus::kOk || !r.Truthy()) {
      if (stats_) {
        ++stats_->removed[c];
        if (status != EvalStatus::kOk) ++stats_->invalid[c];
      }
      return false;
    }
  }
  return true;
}

const std::vector<Value>& Counter::ValuesOf(int n, const PlanNode& node, const Value* slots) {
  if (node.is_static) return node.values;
  m_.ValueSet(m_.levels[node.level], slots, &scratch_[n]);
  return scratch_[n];
}

const std::vector<Value>& Counter::Values(int n, const Value* slots) {
  return ValuesOf(n, plan_.nodes[n], slots);
}

template <bool kStats>
inline bool Counter::BindT(const PlanNode& node, const Value& v, Value* slots) {
  slots[node.slot] = v;
  for (int d : node.derived) {
    const Impl::Derived& dv = m_.derived[d];
    if (dv.expr.Eval(slots, &slots[dv.slot]) != EvalStatus::kOk && !plan_.raw) {
      if (kStats) ++stats_->derived_errors;
      return false;
    }
  }
  for (int c : node.checks) {
    Value r;
    EvalStatus status = m_.compiled[c].Eval(slots, &r);
    if (status != EvalStatus::kOk || !r.Truthy()) {
      if (kStats) {
        ++stats_->removed[c];
        if (status != EvalStatus::kOk) ++stats_->invalid[c];
      }
      return false;
    }
  }
  return true;
}

template <bool kStats>
inline uint64_t Counter::ChildrenT(const PlanNode& node, Value* slots) {
  uint64_t product = 1;
  for (int child : node.children) {
    uint64_t c = CountT<kStats>(child, slots);
    if (c == 0) return 0;
    product = CheckedProduct(product, c);
  }
  return product;
}

template <bool kStats>
uint64_t Counter::CountT(int n, Value* slots) {
  const PlanNode& node = plan_.nodes[n];
  if (node.constant >= 0) return static_cast<uint64_t>(node.constant);
  MemoTable* table = tables_[n].get();
  size_t mark = 0;
  if (table) {
    MemoTable::MakeKey(node.context, slots, keys_[n].data());
    if (const uint64_t* hit = table->Find(keys_[n].data())) {
      if (kStats) {  // the subtree's statistics, as if walked again
        const uint64_t* s = hit + 1;
        for (size_t k = 0; k < node.subtree_checks.size(); ++k) {
          stats_->removed[node.subtree_checks[k]] += s[2 * k];
          stats_->invalid[node.subtree_checks[k]] += s[2 * k + 1];
        }
        stats_->derived_errors += s[2 * node.subtree_checks.size()];
      }
      return hit[0];
    }
    if (kStats) {
      mark = marks_.size();
      for (int c : node.subtree_checks) {
        marks_.push_back(stats_->removed[c]);
        marks_.push_back(stats_->invalid[c]);
      }
      marks_.push_back(stats_->derived_errors);
    }
  }
  const std::vector<Value>& values = ValuesOf(n, node, slots);
  uint64_t total = 0;
  if (node.children.empty()) {
    if (node.checks.empty() && node.derived.empty()) {
      total = values.size();
    } else {
      for (const Value& v : values) total += BindT<kStats>(node, v, slots) ? 1 : 0;
    }
  } else {
    for (const Value& v : values) {
      if (BindT<kStats>(node, v, slots)) total = Add(total, ChildrenT<kStats>(node, slots));
    }
  }
  if (table) {
    uint64_t* entry = table->Insert(keys_[n].data());
    if (entry) entry[0] = total;
    if (kStats) {
      const uint64_t* before = &marks_[mark];
      size_t k = 0;
      for (int c : node.subtree_checks) {
        if (entry) entry[1 + k] = stats_->removed[c] - before[k];
        ++k;
        if (entry) entry[1 + k] = stats_->invalid[c] - before[k];
        ++k;
      }
      if (entry) entry[1 + k] = stats_->derived_errors - before[k];
      marks_.resize(mark);
    }
  }
  return total;
}

uint64_t Counter::Count(int n, Value* slots) {
  return stats_ ? CountT<true>(n, slots) : CountT<false>(n, slots);
}

bool Counter::Bind(int n, const Value& v, Value* slots) {
  const PlanNode& node = plan_.nodes[n];
  return stats_ ? BindT<true>(node, v, slots) : BindT<false>(node, v, slots);
}

uint64_t Counter::Children(int n, Value* slots) {
  const PlanNode& node = plan_.nodes[n];
  return stats_ ? ChildrenT<true>(node, slots) : ChildrenT<false>(node, slots);
}

void RunParallel(size_t items, unsigned threads,
                 const std::function<void(size_t, unsigned)>& work) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto loop = [&](unsigned t) {
    try {
      for (size_t i = next++; i < items; i = next++) work(i, t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next = items;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(loop, t);
  loop(0);
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

namespace {

// Counts one root's subtree on several threads: the outer nodes of the
// root's chain (while each has a single child) are bound here, until there
// are enough partial configs to share out; each thread counts what lies
// below the ones it takes.
uint64_t CountRootParallel(const Impl& m, const Plan& plan, int root, unsigned threads,
                           Counter* main, const std::vector<Value>& base, WalkStats* stats) {
  const size_t kEnough = 8 * static_cast<size_t>(threads);
  std::vector<std::vector<Value>> items{base};
  int last = -1;
  for (int n = root;;) {
    std::vector<std::vector<Value>> next;
    for (auto& slots : items) {
      const std::vector<Value> values = main->Values(n, slots.data());
      for (const Value& v : values) {
        if (main->Bind(n, v, slots.data())) next.push_back(slots);
      }
    }
    items.swap(next);
    last = n;
    const PlanNode& node = plan.nodes[n];
    if (items.size() >= kEnough || node.children.size() != 1) break;
    n = node.children[0];
  }
  std::vector<uint64_t> counts(items.size(), 0);
  std::vector<std::unique_ptr<WalkStats>> thread_stats(threads);
  std::vector<std::unique_ptr<Counter>> counters(threads);
  for (unsigned t = 0; t < threads; ++t) {
    if (stats) thread_stats[t] = std::make_unique<WalkStats>(stats->removed.size());
    counters[t] = std::make_unique<Counter>(m, plan, MemoPolicy::kRecurring, thread_stats[t].get());
  }
  RunParallel(items.size(), threads, [&](size_t i, unsigned t) {
    counts[i] = counters[t]->Children(last, items[i].data());
  });
  uint64_t total = 0;
  for (uint64_t c : counts) total = Add(total, c);
  if (stats) {
    for (const auto& s : thread_stats) stats->Add(*s);
  }
  return total;
}

}  // namespace

uint64_t CountPlan(const Impl& m, const Plan& plan, unsigned threads, WalkStats* stats) {
  Counter main(m, plan, MemoPolicy::kRecurring, stats);
  std::vector<Value> slots;
  if (!main.Prepare(&slots)) return 0;
  uint64_t total = 1;
  for (int root : plan.roots) {
    uint64_t c = threads > 1 && plan.nodes[root].constant < 0
                     ? CountRootParallel(m, plan, root, threads, &main, slots, stats)
                     : main.Count(root, slots.data());
    if (c == 0) return 0;
    total = CheckedProduct(total, c);
  }
  return total;
}

}  // namespace beast::space
