// Strategies by name (strategy.hpp).
#include "beast/search/strategy.hpp"

#include "beast/core/error.hpp"
#include "beast/search/exhaustive_strategy.hpp"
#include "beast/search/model_strategy.hpp"
#include "beast/search/random_strategy.hpp"

namespace beast {

std::vector<std::string> StrategyNames() { return {"model", "random", "exhaustive"}; }

std::unique_ptr<Strategy> MakeStrategy(const std::string& name, uint64_t seed) {
  if (name == "model") {
    return std::make_unique<ModelStrategy>(seed);
  }
  if (name == "random") return std::make_unique<RandomStrategy>(seed);
  if (name == "exhaustive") return std::make_unique<ExhaustiveStrategy>();
  std::string known;
  for (const std::string& n : StrategyNames()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorCode::kBadArgument, "unknown strategy \"" + name + "\" (known: " + known + ")");
}

}  // namespace beast
