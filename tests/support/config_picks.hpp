// Picks configs of a template's space by what they are, not by where the
// enumeration order puts them: configs with given parameter values (a staging
// on/off combination, a vector width), the smallest or largest work-group
// tile, configs that only the hard constraints allow (what `beast tune
// --ignore-soft` and the exporter's nearest-shape configs may run), and a set
// of configs that gives every code-path flag of a template each value it can
// take. The tests that check every code path of the kernel templates choose
// their configs here (tests/unit/harness/cuda/cuda_compile_test.cpp,
// tests/integration/kernel_templates/correctness_sweep_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "beast/space/bound_space.hpp"
#include "beast/space/user_constraints.hpp"

namespace beast::testing {

// A parameter that switches a code path of a template, and its values.
struct Flag {
  std::string name;
  std::vector<int64_t> values;
};

struct TemplateFlags {
  std::vector<std::string> staging;  // the 0/1 local-memory staging switches
  std::vector<Flag> flags;           // every code-path switch, staging included
};

// By hand, so that a new template fails the tests that use this until its
// flags are named here, and a renamed parameter fails them too.
inline TemplateFlags FlagsOf(const SpaceSpec& spec) {
  const std::vector<int64_t> kOnOff = {0, 1}, kWidths = {1, 2, 4, 8};
  const std::map<std::string, TemplateFlags> kFlags = {
      {"conv2d/direct_nchw",
       {{"USE_LOCAL"}, {{"USE_LOCAL", kOnOff}, {"UNROLL_RS", kOnOff}, {"VW", kWidths}}}},
      {"conv2d/direct_nhwc",
       {{"SX", "SW"},
        {{"SX", kOnOff}, {"SW", kOnOff}, {"UNROLL_RS", kOnOff}, {"VW", kWidths}, {"CV", kWidths}}}},
      {"conv2d/implicit_gemm",
       {{"SA", "SB"},
        {{"SA", kOnOff},
         {"SB", kOnOff},
         {"UNROLL_RS", kOnOff},
         {"PADQ", kOnOff},
         {"VW", kWidths},
         {"WIDEN", kOnOff}}}},
      {"conv2d/winograd", {{}, {{"MT", {2, 4}}, {"VW", kWidths}}}},
      {"conv2d/winograd_split",
       {{}, {{"MT", {2, 4}}, {"VW", {1, 2, 4, 8, 16}}, {"WIDEN", kOnOff}}}},
      {"conv2d/implicit_gemm_mma",
       {{},
        {{"STAGES", {2, 3, 4, 5}},
         {"VEC", {2, 4, 8}},
         {"PAD", {0, 8}},
         {"SWZ", {1, 2, 4, 8}},
         {"SPLITK", {1, 2, 4, 8}}}}},
      {"gemm/mma",
       {{},
        {{"STAGES", {2, 3, 4, 5}},
         {"VEC", {2, 4, 8}},
         {"PAD", {0, 8}},
         {"SWZ", {1, 2, 4, 8}},
         {"SPLITK", {1, 2, 4, 8}}}}},
      {"gemm/tiled",
       {{"SA", "SB"},
        {{"SA", kOnOff},
         {"SB", kOnOff},
         {"VWM", kWidths},
         {"VWN", kWidths},
         {"STRM", kOnOff},
         {"STRN", kOnOff}}}},
  };
  auto it = kFlags.find(spec.name);
  if (it == kFlags.end()) {
    throw std::runtime_error(spec.name +
                             ": name its code-path flags in tests/support/config_picks.hpp");
  }
  for (const Flag& flag : it->second.flags) {
    bool known = false;
    for (const ParamSpec& p : spec.params) known = known || p.name == flag.name;
    if (!known) throw std::runtime_error(spec.name + " has no parameter " + flag.name);
  }
  return it->second;
}

// Every on/off combination of the staging flags, each as one condition
// ("SA == 0 and SB == 1"); "True" for a template without staging.
inline std::vector<std::string> StagingCombinations(const TemplateFlags& flags) {
  std::vector<std::string> combos;
  const size_t n = flags.staging.size();
  for (size_t mask = 0; mask < (size_t{1} << n); ++mask) {
    std::string condition;
    for (size_t i = 0; i < n; ++i) {
      if (i) condition += " and ";
      condition += flags.staging[i] + " == " + std::to_string((mask >> i) & 1);
    }
    combos.push_back(n ? condition : "True");
  }
  return combos;
}

// Outputs per work-group, the product of the template's tile sizes: every
// template defines PADDED_OUTPUTS (tiles x tile size) and GROUPS (the
// work-groups launched). A split-K config's SPLITK work-groups share a tile,
// so its value is the tile / SPLITK: the work of one work-group.
constexpr char kTileExpr[] = "PADDED_OUTPUTS // GROUPS";

inline int64_t ValueOf(const Config& config, const std::string& name) {
  const Value* v = config.Find(name);
  if (v == nullptr) throw std::runtime_error(config.Key() + " has no parameter " + name);
  return static_cast<int64_t>(v->AsDouble());
}

class ConfigPicker {
 public:
  ConfigPicker(const SpaceSpec& spec, const Problem& problem, const DeviceInfo& device)
      : spec_(spec), problem_(problem), device_(device) {}

  // The space narrowed to the configs where every condition holds; with
  // hard_only, without the template's soft constraints.
  BoundSpace Where(const std::vector<std::string>& conditions, bool hard_only) const {
    BindOptions options;
    options.ignore_soft = hard_only;
    for (const auto& c : conditions) options.extra.push_back(ParseUserConstraint("hard: " + c));
    return BoundSpace(spec_, problem_, device_, options);
  }

  uint64_t Count(const std::vector<std::string>& conditions, bool hard_only) const {
    return Where(conditions, hard_only).Count();
  }

  // A config drawn at random (seeded) from the narrowed space; none when it is empty.
  std::optional<Config> Random(const std::vector<std::string>& conditions, bool hard_only,
                               uint64_t seed) const {
    std::vector<Config> one = Where(conditions, hard_only).Sample(1, seed);
    if (one.empty()) return std::nullopt;
    return one[0];
  }

  // The smallest (largest) value of an integer expression (at least 0) over
  // the narrowed space; none when it is empty. Count() is cheap (subtrees are
  // counted, not listed), so it is found by bisection on "expr <= t": the
  // smallest t that keeps a config (smallest) or keeps them all (largest).
  std::optional<int64_t> ExtremeValue(const std::string& expr,
                                      const std::vector<std::string>& conditions, bool hard_only,
                                      bool largest) const {
    const uint64_t total = Count(conditions, hard_only);
    if (total == 0) return std::nullopt;
    auto reached = [&](int64_t t) {
      std::vector<std::string> c = conditions;
      c.push_back("(" + expr + ") <= " + std::to_string(t));
      uint64_t n = Count(c, hard_only);
      return largest ? n == total : n > 0;
    };
    int64_t lo = -1, hi = 0;  // reached(lo) is false; reached(hi) is looked for
    while (!reached(hi)) lo = hi, hi = 2 * hi + 1;
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      (reached(mid) ? hi : lo) = mid;
    }
    return hi;
  }

  // A config where the expression takes that extreme, drawn at random among them.
  std::optional<Config> Extreme(const std::string& expr, std::vector<std::string> conditions,
                                bool hard_only, uint64_t seed, bool largest) const {
    std::optional<int64_t> value = ExtremeValue(expr, conditions, hard_only, largest);
    if (!value) return std::nullopt;
    conditions.push_back("(" + expr + ") == " + std::to_string(*value));
    return Random(conditions, hard_only, seed);
  }

  // A config with the smallest work-group tile (kTileExpr).
  std::optional<Config> SmallestTile(const std::vector<std::string>& conditions, bool hard_only,
                                     uint64_t seed) const {
    return Extreme(kTileExpr, conditions, hard_only, seed, /*largest=*/false);
  }
  // A config with the largest work-group tile and, among those, the most
  // work-items (WG_SIZE, defined by every template) sharing it: the fewest
  // outputs per work-item, whose code builds and runs fastest on PoCL (a
  // largest tile with 64 outputs per item ran for seconds on small shapes).
  std::optional<Config> LargestTile(std::vector<std::string> conditions, bool hard_only,
                                    uint64_t seed) const {
    std::optional<int64_t> tile = ExtremeValue(kTileExpr, conditions, hard_only, true);
    if (!tile) return std::nullopt;
    conditions.push_back(std::string("(") + kTileExpr + ") == " + std::to_string(*tile));
    return Extreme("WG_SIZE", conditions, hard_only, seed, /*largest=*/true);
  }

  // Up to k distinct configs, drawn at random, that the hard constraints
  // allow and a soft one rejects.
  std::vector<Config> HardOnly(size_t k, uint64_t seed) const {
    BoundSpace hard = Where({}, true), soft = Where({}, false);
    std::vector<Config> picked;
    std::string why;
    for (uint64_t i = 0; i < 64 * k && picked.size() < k; ++i) {
      for (const Config& c : hard.Sample(1, seed + i)) {
        bool seen = false;
        for (const Config& p : picked) seen = seen || p.Key() == c.Key();
        if (!seen && !soft.Check(c, &why)) picked.push_back(c);
      }
    }
    return picked;
  }

  int64_t TileOf(const Config& config) const {
    Instance instance = Where({}, true).Instantiate(config);
    int64_t padded = -1, groups = -1;
    for (const auto& [name, value] : instance.vars) {
      if (name == "PADDED_OUTPUTS") padded = static_cast<int64_t>(value.AsDouble());
      if (name == "GROUPS") groups = static_cast<int64_t>(value.AsDouble());
    }
    return padded / groups;
  }

 private:
  SpaceSpec spec_;
  Problem problem_;
  DeviceInfo device_;
};

// Configs that between them give every flag each value the hard constraints
// allow it on this problem: the default (when the hard constraints allow
// it), then, while a (flag, value) pair is missing, a config with that pair
// and as many other missing ones as fit together, from the space with its
// soft constraints where they allow the pair, else from the hard-only one:
// one of the smallest tile there, as the code of big tiles takes NVRTC
// seconds to compile (a random soft-valid implicit_gemm took over 30 s).
struct FlagCover {
  std::vector<Config> configs;
  std::vector<std::pair<std::string, int64_t>> reachable;  // the (flag, value) pairs to cover
};

inline bool Covers(const std::vector<Config>& configs, const std::string& name, int64_t value) {
  for (const Config& c : configs) {
    if (ValueOf(c, name) == value) return true;
  }
  return false;
}

inline FlagCover CoverFlags(const ConfigPicker& picker, const TemplateFlags& flags, uint64_t seed) {
  FlagCover cover;
  auto condition = [](const std::pair<std::string, int64_t>& fv) {
    return fv.first + " == " + std::to_string(fv.second);
  };
  for (const Flag& flag : flags.flags) {
    for (int64_t v : flag.values) {
      if (picker.Count({flag.name + " == " + std::to_string(v)}, true) > 0) {
        cover.reachable.emplace_back(flag.name, v);
      }
    }
  }
  BoundSpace hard = picker.Where({}, true);
  std::string why;
  Config def = hard.DefaultConfig();
  if (hard.Check(def, &why)) cover.configs.push_back(def);
  for (const auto& first : cover.reachable) {
    if (Covers(cover.configs, first.first, first.second)) continue;
    const bool hard_only = picker.Count({condition(first)}, false) == 0;
    std::vector<std::string> conditions = {condition(first)};
    std::vector<std::string> named = {first.first};
    for (const auto& other : cover.reachable) {
      bool taken = false;
      for (const auto& n : named) taken = taken || n == other.first;
      if (taken || Covers(cover.configs, other.first, other.second)) continue;
      conditions.push_back(condition(other));
      if (picker.Count(conditions, hard_only) > 0) {
        named.push_back(other.first);
      } else {
        conditions.pop_back();
      }
    }
    std::optional<Config> picked =
        picker.SmallestTile(conditions, hard_only, seed + cover.configs.size());
    if (!picked) {  // the conditions were checked to leave a config: a bug here
      ADD_FAILURE() << "no config where " << conditions.front();
      continue;
    }
    cover.configs.push_back(*picked);
  }
  return cover;
}

}  // namespace beast::testing
