// The shape of a walk plan (space_order.hpp): which parameter each node binds
// and which groups of parameters hang below it. With reordering, the first
// parameter of every group minimizes an estimate of the walk's cost; groups
// are the connected components of what ties the unbound parameters together.
#include "beast/space/space_order.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

namespace beast::space {
namespace {

using Impl = BoundSpace::Impl;

// Something that ties parameters together: an active constraint, a derived
// value (whose failure invalidates a point), or a value set and what it reads.
struct Edge {
  std::vector<int> params;  // ascending
  uint64_t mask = 0;        // params as bits, when the space has at most 64
  double pass = 1;          // fraction of points it lets through (constraints)
  bool is_check = false;
};

class Builder {
 public:
  Builder(const Impl& m, Plan* plan, bool reorder, const std::vector<double>& size)
      : m_(m), plan_(*plan), reorder_(reorder), size_(size), n_(m.levels.size()) {
    use_masks_ = n_ <= 64;
    for (size_t c = 0; c < m.constraints.size(); ++c) {
      if (!plan_.active[c] || m.constraint_params[c].empty() || plan_.prefilter_level[c] >= 0) {
        continue;
      }
      AddEdge(m.constraint_params[c], m.pass_rate[c], true);
    }
    for (size_t l = 0; l < n_; ++l) {
      if (m.levels[l].is_static) continue;
      std::vector<int> params = m.levels[l].params;
      params.push_back(static_cast<int>(l));
      std::sort(params.begin(), params.end());
      AddEdge(params, 1, false);
    }
    if (!plan_.raw) {
      for (const auto& d : m.derived) {
        if (!d.params.empty()) AddEdge(d.params, 1, false);
      }
    }
    deps_mask_.assign(n_, 0);
    neighbours_.assign(n_, 0);
    for (size_t l = 0; l < n_ && use_masks_; ++l) {
      for (int q : m.levels[l].params) deps_mask_[l] |= Bit(q);
    }
    edges_of_.resize(n_);
    for (size_t e = 0; e < edges_.size(); ++e) {
      for (int p : edges_[e].params) {
        neighbours_[p] |= edges_[e].mask;
        edges_of_[p].push_back(static_cast<int>(e));
      }
    }
  }

  void Run() {
    std::vector<int> all(n_);
    for (size_t l = 0; l < n_; ++l) all[l] = static_cast<int>(l);
    std::vector<char> bound(n_, 0);
    plan_.roots = BuildGroups(all, &bound);
  }

 private:
  static uint64_t Bit(int p) { return uint64_t{1} << p; }

  void AddEdge(const std::vector<int>& params, double pass, bool is_check) {
    Edge e;
    e.params = params;
    e.pass = pass;
    e.is_check = is_check;
    if (use_masks_) {
      for (int p : params) e.mask |= Bit(p);
    }
    edges_.push_back(std::move(e));
  }

  // Connected components of set (ascending, each ascending), ordered by
  // their first parameter.
  std::vector<std::vector<int>> Components(const std::vector<int>& set) const {
    std::vector<int> parent(n_, -1);
    for (int p : set) parent[p] = p;
    std::function<int(int)> find = [&](int x) {
      return parent[x] == x ? x : parent[x] = find(parent[x]);
    };
    for (const Edge& e : edges_) {
      int first = -1;
      for (int p : e.params) {
        if (parent[p] < 0) continue;
        if (first < 0)
          first = find(p);
        else
          parent[find(p)] = first;
      }
    }
    std::map<int, std::vector<int>> by_root;
    std::vector<int> order;
    for (int p : set) {
      int r = find(p);
      if (by_root[r].empty()) order.push_back(r);
      by_root[r].push_back(p);
    }
    std::vector<std::vector<int>> out;
    for (int r : order) out.push_back(by_root[r]);
    return out;
  }

  // Groups walked apart: the components, or, to keep the declared order,
  // the components merged wherever their spans interleave.
  std::vector<std::vector<int>> Groups(const std::vector<int>& set) const {
    std::vector<std::vector<int>> comps = Components(set);
    if (reorder_) return comps;
    std::vector<std::vector<int>> out;
    int end = -1;
    for (auto& c : comps) {
      if (!out.empty() && c.front() < end) {
        out.back().insert(out.back().end(), c.begin(), c.end());
        std::sort(out.back().begin(), out.back().end());
      } else {
        out.push_back(c);
      }
      end = std::max(end, c.back());
    }
    return out;
  }

  std::vector<int> BuildGroups(const std::vector<int>& set, std::vector<char>* bound) {
    std::vector<int> nodes;
    for (const auto& group : Groups(set)) nodes.push_back(BuildNode(group, bound));
    return nodes;
  }

  int BuildNode(const std::vector<int>& group, std::vector<char>* bound) {
    int p = Choose(group, *bound);
    int id = static_cast<int>(plan_.nodes.size());
    plan_.nodes.emplace_back();
    PlanNode node;
    node.level = p;
    node.slot = m_.levels[p].slot;
    node.is_static = m_.levels[p].is_static;
    (*bound)[p] = 1;
    auto all_bound = [&](const std::vector<int>& params) {
      return std::all_of(params.begin(), params.end(), [&](int q) { return (*bound)[q] != 0; });
    };
    auto has_p = [&](const std::vector<int>& params) {
      return std::find(params.begin(), params.end(), p) != params.end();
    };
    for (size_t d = 0; d < m_.derived.size(); ++d) {
      if (has_p(m_.derived[d].params) && all_bound(m_.derived[d].params)) {
        node.derived.push_back(static_cast<int>(d));
      }
    }
    for (size_t c = 0; c < m_.constraints.size(); ++c) {
      const auto& params = m_.constraint_params[c];
      if (plan_.active[c] && plan_.prefilter_level[c] < 0 && has_p(params) && all_bound(params)) {
        node.checks.push_back(static_cast<int>(c));
        plan_.check_node[c] = id;
      }
    }
    std::vector<int> rest;
    for (int q : group) {
      if (q != p) rest.push_back(q);
    }
    node.children = BuildGroups(rest, bound);
    (*bound)[p] = 0;
    plan_.nodes[id] = std::move(node);
    return id;
  }

  int Choose(const std::vector<int>& group, const std::vector<char>& bound) {
    if (!reorder_) return group.front();
    if (use_masks_) {
      uint64_t mask = 0;
      for (int p : group) mask |= Bit(p);
      Cost(mask);
      return states_[mask].choice;
    }
    return Greedy(group, bound);
  }

  // Fail first: the parameter with the fewest values left after the checks
  // it completes; ties go to the one tied to more of the group.
  int Greedy(const std::vector<int>& group, const std::vector<char>& bound) const {
    int best = -1;
    double best_branch = 0;
    size_t best_links = 0;
    for (int p : group) {
      bool eligible = std::all_of(m_.levels[p].params.begin(), m_.levels[p].params.end(),
                                  [&](int q) { return bound[q] != 0; });
      if (!eligible) continue;
      double branch = size_[p];
      size_t links = 0;
      for (const Edge& e : edges_) {
        if (std::find(e.params.begin(), e.params.end(), p) == e.params.end()) continue;
        bool complete = std::all_of(e.params.begin(), e.params.end(),
                                    [&](int q) { return q == p || bound[q] != 0; });
        if (complete)
          branch *= e.pass;
        else
          ++links;
      }
      if (best < 0 || branch < best_branch || (branch == best_branch && links > best_links)) {
        best = p;
        best_branch = branch;
        best_links = links;
      }
    }
    BEAST_CHECK(best >= 0);
    return best;
  }

  // Components of mask: a parameter's neighbours (everything an edge shares
  // with it) restricted to mask are in its component.
  int MaskComponents(uint64_t mask, uint64_t* out) const {
    int count = 0;
    while (mask) {
      uint64_t comp = 0, frontier = mask & (~mask + 1);
      while (frontier) {
        comp |= frontier;
        uint64_t reach = 0;
        for (uint64_t f = frontier; f; f &= f - 1) reach |= neighbours_[__builtin_ctzll(f)];
        frontier = reach & mask & ~comp;
      }
      out[count++] = comp;
      mask &= ~comp;
    }
    return count;
  }

  // The estimated cost of walking the connected group `mask` (everything it
  // touches outside is bound, so the cost depends on the group only): the
  // values tried at its first parameter and the evaluations they need, plus
  // the survivors times the cost of the groups below. Minimized over the
  // first parameter while the number of states explored is small, greedy
  // beyond.
  double Cost(uint64_t mask) {
    auto found = states_.find(mask);
    if (found != states_.end()) return found->second.cost;
    // Candidates fail-first: fewest values left after the checks they
    // complete, then most ties into the rest of the group. The budget of
    // explored states goes to the likeliest first; past it, only the first
    // candidate is costed.
    struct Candidate {
      int p;
      double evals, pass, branch;
      int links;
    };
    Candidate candidates[64];
    int count = 0;
    for (uint64_t left = mask; left; left &= left - 1) {
      int p = __builtin_ctzll(left);
      if (deps_mask_[p] & mask) continue;
      Candidate c{p, 1, 1, 0, 0};
      for (int e : edges_of_[p]) {
        if ((edges_[e].mask & mask) == Bit(p)) {
          c.evals += 1;
          if (edges_[e].is_check) c.pass *= edges_[e].pass;
        } else {
          ++c.links;
        }
      }
      c.branch = size_[p] * c.pass;
      candidates[count++] = c;
    }
    std::sort(candidates, candidates + count, [](const Candidate& a, const Candidate& b) {
      if (a.branch != b.branch) return a.branch < b.branch;
      if (a.links != b.links) return a.links > b.links;
      return a.p < b.p;
    });
    if (states_.size() >= kMaxStates) count = std::min(count, 1);
    double best = std::numeric_limits<double>::infinity();
    int choice = -1;
    uint64_t comps[64];
    for (int k = 0; k < count; ++k) {
      const Candidate& c = candidates[k];
      double below = 0;
      int ncomps = MaskComponents(mask & ~Bit(c.p), comps);
      for (int j = 0; j < ncomps; ++j) below += Cost(comps[j]);
      double cost = size_[c.p] * c.evals + c.branch * below;
      if (choice < 0 || cost < best * (1 - 1e-9)) {
        best = cost;
        choice = c.p;
      }
    }
    BEAST_CHECK(choice >= 0);
    states_[mask] = {best, choice};
    return best;
  }

  static constexpr size_t kMaxStates = 5000;
  struct State {
    double cost;
    int choice;
  };

  const Impl& m_;
  Plan& plan_;
  bool reorder_;
  const std::vector<double>& size_;
  size_t n_;
  bool use_masks_ = true;
  std::vector<Edge> edges_;
  std::vector<uint64_t> deps_mask_;
  std::vector<uint64_t> neighbours_;
  std::vector<std::vector<int>> edges_of_;  // per parameter: the edges it is in
  std::unordered_map<uint64_t, State> states_;
};

}  // namespace

void BuildTree(const Impl& m, Plan* plan, bool reorder, const std::vector<double>& size) {
  Builder(m, plan, reorder, size).Run();
}

}  // namespace beast::space
